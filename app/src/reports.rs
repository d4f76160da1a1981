// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel test robot's report mails as the pages and the API show them (issue 56): a
//! stored report section ([`ReportEntry`]), the search over them ([`ReportSearch`]), one
//! report with what it links to ([`ReportDetail`]) and a commit's page ([`CommitPage`]).
//! Shared by the server (which fills them) and the browser.

use serde::{Deserialize, Serialize};

/// The most reports a search lists at once.
pub const MAX_LIMIT: i64 = 1_000;
/// What a search lists when it says nothing.
pub const DEFAULT_LIMIT: i64 = 100;
/// The most reports the KPI's trend on a report's page draws (the newest).
pub const TREND_REPORTS: i64 = 500;

/// One stored report section, as the upload, the list and the pages show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ReportEntry {
    pub id: i64,
    pub message_id: String,
    /// The tested commit and the base, as the section's `commit:` block names them (the
    /// tested commit in full where the mail's header gives it).
    pub commit: String,
    pub base: String,
    pub testcase: String,
    pub machine: String,
    pub kpi: String,
    /// As the mail prints it, e.g. `-6.1%`.
    pub change: String,
    /// `regression` or `improvement`.
    pub kind: String,
    pub subject: String,
    /// The mail's `Date:` as printed.
    pub date: String,
    /// The mail's date in UTC (`2025-03-10T12:54:00Z`); empty when unreadable.
    pub sent_at: String,
    /// The subject's bracket (`mm`, `btrfs`); empty when it has none.
    pub subsystem: String,
    /// The KPI row's means: base and tested commit.
    pub kpi_base: Option<f64>,
    pub kpi_head: Option<f64>,
    /// `https://lore.kernel.org/r/<Message-ID>`.
    pub lore: String,
}

impl ReportEntry {
    /// The report's page.
    pub fn href(&self) -> String {
        format!("/reports/{}", self.id)
    }

    /// The day it was sent (`2025-03-10`), or the mail's date as printed.
    pub fn day(&self) -> &str {
        if self.sent_at.len() >= 10 {
            crate::text::head(&self.sent_at, 10)
        } else {
            &self.date
        }
    }
}

/// The samples of one of the ASCII plots that mails until about 2021 carry under their table:
/// the bisection's runs of the base (bisect-good, `+`) and the tested commit (bisect-bad,
/// `O`) of one metric, left to right, each read off the plot at its row's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BisectSamples {
    pub metric: String,
    pub good: Vec<f64>,
    pub bad: Vec<f64>,
    /// What one text row of the plot spans: each sample is within half of it.
    pub row_step: f64,
}

impl BisectSamples {
    pub fn good_mean(&self) -> Option<f64> {
        mean(&self.good)
    }

    pub fn bad_mean(&self) -> Option<f64> {
        mean(&self.bad)
    }

    /// The bad samples' mean against the good ones', in percent.
    pub fn change_pct(&self) -> Option<f64> {
        let (g, b) = (self.good_mean()?, self.bad_mean()?);
        (g != 0.0).then(|| 100.0 * (b - g) / g.abs())
    }
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// A mail of an upload that is not stored, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RefusedMail {
    /// Its place in the upload (0 = first).
    pub mail: usize,
    pub message_id: Option<String>,
    pub reason: String,
}

/// The answer to an upload of mails.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct MailsStored {
    pub reports: Vec<ReportEntry>,
    /// How many of `reports` were new.
    pub new: usize,
    pub refused: Vec<RefusedMail>,
    /// The uploads holding the plots' samples as runs (`lkp-mail:TESTCASE`), one a mail:
    /// the bisect-good samples at the base, the bisect-bad ones at the tested commit.
    #[serde(default)]
    pub plot_uploads: Vec<i64>,
    /// What was not stored as runs, and why (a plot without a machine, an uploader without
    /// the mark scope).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// What `GET /api/v1/reports` and `/reports` filter on; all given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
pub struct ReportSearch {
    /// A prefix of the tested or the base commit (7 to 40 hex digits).
    pub commit: Option<String>,
    pub testcase: Option<String>,
    /// Any metric the report's table has a row of.
    pub metric: Option<String>,
    /// The headline's (or the box's) KPI.
    pub kpi: Option<String>,
    /// The subject's bracket, e.g. `mm` (as `[mm]` in the subject).
    pub subsystem: Option<String>,
    /// The test machine (`lkp-icl-2sp2`).
    pub machine: Option<String>,
    /// Mails sent on or after this day (`2024-01-31`, UTC).
    pub since: Option<String>,
    /// Mails sent on or before this day.
    pub until: Option<String>,
    /// At most this many (default 100, at most 1,000).
    pub limit: Option<i64>,
    /// Skip this many (the next page).
    pub offset: Option<i64>,
}

impl ReportSearch {
    /// From a page's query: empty fields are absent.
    pub fn from_pairs(get: impl Fn(&str) -> Option<String>) -> ReportSearch {
        let text = |k: &str| {
            get(k)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        ReportSearch {
            commit: text("commit"),
            testcase: text("testcase"),
            metric: text("metric"),
            kpi: text("kpi"),
            subsystem: text("subsystem"),
            machine: text("machine"),
            since: text("since"),
            until: text("until"),
            limit: text("limit").and_then(|v| v.parse().ok()),
            offset: text("offset").and_then(|v| v.parse().ok()),
        }
    }

    /// The search with its fields checked and the commit in lower case; or what is wrong.
    pub fn checked(mut self) -> Result<ReportSearch, String> {
        for v in [
            &mut self.testcase,
            &mut self.metric,
            &mut self.kpi,
            &mut self.subsystem,
            &mut self.machine,
        ] {
            if v.as_deref().is_some_and(str::is_empty) {
                *v = None;
            }
        }
        if let Some(c) = &mut self.commit {
            if !(7..=40).contains(&c.len()) || !c.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err("commit must be 7 to 40 hex digits".into());
            }
            c.make_ascii_lowercase();
        }
        for (name, v) in [
            ("testcase", &self.testcase),
            ("metric", &self.metric),
            ("kpi", &self.kpi),
            ("subsystem", &self.subsystem),
            ("machine", &self.machine),
        ] {
            if v.as_ref().is_some_and(|v| v.len() > 500) {
                return Err(format!("{name} must be at most 500 characters"));
            }
        }
        for (name, v) in [("since", &self.since), ("until", &self.until)] {
            if v.as_ref().is_some_and(|d| !is_day(d)) {
                return Err(format!("{name} must be a day, as 2024-01-31"));
            }
        }
        if self.limit.is_some_and(|l| !(1..=MAX_LIMIT).contains(&l)) {
            return Err(format!("limit must be between 1 and {MAX_LIMIT}"));
        }
        if self.offset.is_some_and(|o| !(0..=10_000_000).contains(&o)) {
            return Err("offset must be between 0 and 10000000".into());
        }
        Ok(self)
    }

    /// The query string that asks for this search (for links), without `limit`/`offset`.
    pub fn query(&self) -> String {
        [
            ("commit", &self.commit),
            ("testcase", &self.testcase),
            ("metric", &self.metric),
            ("kpi", &self.kpi),
            ("subsystem", &self.subsystem),
            ("machine", &self.machine),
            ("since", &self.since),
            ("until", &self.until),
        ]
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={}", crate::url::encode(v))))
        .collect::<Vec<_>>()
        .join("&")
    }
}

/// `YYYY-MM-DD`.
fn is_day(d: &str) -> bool {
    let b = d.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// A page of reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportList {
    pub search: ReportSearch,
    pub reports: Vec<ReportEntry>,
    /// Whether more match after these.
    pub more: bool,
}

/// A lab's runs of the report's testcase at one of its commits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabRuns {
    pub benchmark: String,
    pub machine: String,
    pub commit: String,
    pub runs: i64,
}

/// One of Perfline's own alert summaries about a commit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabAlert {
    pub id: i64,
    pub benchmark: String,
    pub machine: String,
    pub good_sha: String,
    pub bad_sha: String,
    pub status: String,
    pub regressions: i64,
    pub improvements: i64,
    /// The largest change, in percent.
    pub worst_pct: f64,
}

/// What the lab's own uploads say where they meet a report (same testcase, same commits).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LabBeside {
    /// The lab's runs of the testcase at the report's base and tested commit.
    pub runs: Vec<LabRuns>,
    /// Perfline's alerts whose first bad commit is the tested commit.
    pub alerts: Vec<LabAlert>,
}

impl LabBeside {
    /// Takes out the runs read off the robot's plots: they are the robot's, not the lab's.
    pub fn take_plot_runs(&mut self) -> Vec<LabRuns> {
        let (plots, lab) = std::mem::take(&mut self.runs)
            .into_iter()
            .partition(|r| r.benchmark.starts_with(PLOT_BENCHMARK_PREFIX));
        self.runs = lab;
        plots
    }

    /// The lab's comparison of the two commits on `machine`, when it ran both there.
    pub fn compare_href(&self, testcase: &str, base: &str, head: &str) -> Option<String> {
        let at = |c: &str| {
            self.runs
                .iter()
                .filter(|r| r.benchmark == testcase && prefix_match(&r.commit, c))
                .map(|r| r.machine.clone())
                .collect::<Vec<_>>()
        };
        let on_base = at(base);
        let machine = at(head).into_iter().find(|m| on_base.contains(m))?;
        Some(format!(
            "/compare?benchmark={}&machine={}&commits={},{}",
            crate::url::encode(testcase),
            crate::url::encode(&machine),
            crate::url::encode(base),
            crate::url::encode(head)
        ))
    }
}

/// Whether two commit names are one commit: one is a prefix of the other.
pub fn prefix_match(a: &str, b: &str) -> bool {
    !a.is_empty() && !b.is_empty() && (a.starts_with(b) || b.starts_with(a))
}

/// One report section with what its page links to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportDetail {
    pub entry: ReportEntry,
    /// The headline's KPI and change (the section may be one of the box's tests).
    pub headline_kpi: String,
    pub headline_change: String,
    /// The commits of the `commit:` block with their subjects.
    pub commits: Vec<(String, Option<String>)>,
    pub parameters: Vec<(String, String)>,
    pub notes: Vec<String>,
    /// The bisection's samples from the mail's plots (the headline's section only).
    pub plots: Vec<BisectSamples>,
    /// The section as the mail prints it, from `commit:` through its last row.
    pub text: String,
    /// The other reports that named either commit (newest first).
    pub related: Vec<ReportEntry>,
    /// The reports of this testcase and KPI, oldest first: the KPI over the reports.
    pub trend: Vec<ReportEntry>,
    pub lab: LabBeside,
    /// Per plotted metric, the trend of the plots' samples stored as runs (bisect-good at the
    /// base, bad at the tested commit); empty when they are not stored as runs.
    #[serde(default)]
    pub plot_trends: Vec<(String, String)>,
}

/// The benchmark prefix of the runs read off a mail's plots (`lkp-mail:TESTCASE`): values
/// read off a plot are the robot's, never mixed with the lab's measured runs.
pub const PLOT_BENCHMARK_PREFIX: &str = "lkp-mail:";

/// `/commits/{sha}`: every report that named a commit, and what the lab has of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitPage {
    pub commit: String,
    /// Its subject, from a report or an uploaded git log.
    pub subject: Option<String>,
    /// Reports that tested it (newest first).
    pub tested: Vec<ReportEntry>,
    /// Reports that compared against it as their base.
    pub base_of: Vec<ReportEntry>,
    /// The KPIs its reports named, each over every report of its testcase (the first few).
    pub trends: Vec<KpiTrend>,
    pub lab: LabBeside,
}

/// A testcase's KPI over the robot's reports, oldest first, one of them `this`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KpiTrend {
    pub testcase: String,
    pub kpi: String,
    pub this: i64,
    pub reports: Vec<ReportEntry>,
}

/// The most KPI trends a commit's page draws.
pub const COMMIT_TRENDS: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_is_checked_before_it_is_run() {
        let ok = ReportSearch {
            commit: Some("01D37228D3".into()),
            since: Some("2024-01-31".into()),
            testcase: Some(String::new()),
            ..Default::default()
        }
        .checked()
        .unwrap();
        assert_eq!(ok.commit.as_deref(), Some("01d37228d3"));
        assert_eq!(ok.testcase, None);
        for bad in [
            ReportSearch {
                commit: Some("01d3".into()),
                ..Default::default()
            },
            ReportSearch {
                commit: Some("01d37228zz".into()),
                ..Default::default()
            },
            ReportSearch {
                since: Some("31/01/2024".into()),
                ..Default::default()
            },
            ReportSearch {
                limit: Some(0),
                ..Default::default()
            },
            ReportSearch {
                testcase: Some("x".repeat(501)),
                ..Default::default()
            },
        ] {
            assert!(bad.clone().checked().is_err(), "{bad:?}");
        }
        assert_eq!(
            ok.query(),
            "commit=01d37228d3&since=2024-01-31",
            "links carry the search"
        );
    }
}
