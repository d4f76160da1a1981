// SPDX-License-Identifier: GPL-3.0-or-later
//! Regression alerts on the wire: summaries (one benchmark, machine and commit range, like one
//! LKP mail), their changed metrics, their triage history, and the text every view prints
//! (subject line, where to bisect) — pure, so page, feed, mail and webhook say the same.

use serde::{Deserialize, Serialize};

use crate::url::encode;

/// Where a summary stands in triage.
///
/// A step found under a rule that confirms (the default) starts `awaiting-confirmation`: reruns
/// of its two commits are requested, and nobody is told yet. The reruns make it `new` (and
/// only then mailed) or `unconfirmed` (kept, never mailed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum AlertStatus {
    #[default]
    New,
    Acknowledged,
    Investigating,
    Invalid,
    Fixed,
    Wontfix,
    AwaitingConfirmation,
    Unconfirmed,
}

impl AlertStatus {
    pub const ALL: [AlertStatus; 8] = [
        AlertStatus::New,
        AlertStatus::Acknowledged,
        AlertStatus::Investigating,
        AlertStatus::Invalid,
        AlertStatus::Fixed,
        AlertStatus::Wontfix,
        AlertStatus::AwaitingConfirmation,
        AlertStatus::Unconfirmed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AlertStatus::New => "new",
            AlertStatus::Acknowledged => "acknowledged",
            AlertStatus::Investigating => "investigating",
            AlertStatus::Invalid => "invalid",
            AlertStatus::Fixed => "fixed",
            AlertStatus::Wontfix => "wontfix",
            AlertStatus::AwaitingConfirmation => "awaiting-confirmation",
            AlertStatus::Unconfirmed => "unconfirmed",
        }
    }

    pub fn parse(raw: &str) -> Option<AlertStatus> {
        AlertStatus::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// Whether someone still has to look at it (`new`, `acknowledged`, `investigating`).
    pub fn is_open(self) -> bool {
        matches!(
            self,
            AlertStatus::New | AlertStatus::Acknowledged | AlertStatus::Investigating
        )
    }
}

impl std::fmt::Display for AlertStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for AlertStatus {
    type Error = String;
    fn try_from(raw: String) -> Result<Self, String> {
        AlertStatus::parse(raw.trim()).ok_or_else(|| {
            format!(
                "status must be one of new, acknowledged, investigating, invalid, fixed, wontfix, awaiting-confirmation, unconfirmed, not {raw:?}"
            )
        })
    }
}

/// One end of a summary's commit range.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CommitRef {
    pub kernel: String,
    /// The commit, when the runs named one.
    pub sha: Option<String>,
}

impl CommitRef {
    /// The sha when known, else the kernel label.
    pub fn name(&self) -> &str {
        self.sha.as_deref().unwrap_or(&self.kernel)
    }

    /// Twelve digits of the sha (LKP prints ten), else the kernel label.
    pub fn short(&self) -> &str {
        match &self.sha {
            Some(s) => crate::text::short_commit(s),
            None => &self.kernel,
        }
    }
}

/// One metric that changed at a summary's commit range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Alert {
    pub id: i64,
    pub metric: crate::label::Metric,
    pub param: String,
    pub unit: Option<String>,
    pub direction: crate::label::Direction,
    /// A change in the worse direction for the metric.
    pub regression: bool,
    /// The mean of the per-commit means before and after the step.
    pub before: f64,
    pub after: f64,
    /// 100 · (after − before) / before.
    pub change_pct: f64,
    /// The step's evidence: the p-value of Welch's t test of the segments either side (each
    /// side's variance times the long-run factor of the noise's autocorrelation), after
    /// Bonferroni over the points of the series the detector looked at (its newest 1,000).
    pub p_value: f64,
    pub points_before: u32,
    pub points_after: u32,
    /// Per-commit means around the step, and the index of the first bad one in it.
    pub spark: Vec<f64>,
    pub spark_step: u32,
    /// The step's intervals (absent on alerts found before they were measured).
    #[serde(default)]
    pub evidence: Option<Evidence>,
}

/// What the detector can say of a step beyond its best estimate: where the first bad commit
/// may be and how large the change may be, each a 95 % interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Evidence {
    /// The 95 % interval of `change_pct`.
    pub change_pct_lo: f64,
    pub change_pct_hi: f64,
    /// The first bad commit is, at 95 %, between these two (inclusive, in the trend's
    /// order): the profile likelihood of the step's position.
    pub first_bad_from: CommitRef,
    pub first_bad_to: CommitRef,
    /// How many of the trend's points that range holds.
    pub first_bad_points: u32,
}

/// A p-value as people read it: `< 1e-12`, `3.2e-5`, `0.012`.
pub fn format_p(p: f64) -> String {
    if p < 1e-12 {
        "< 1e-12".to_owned()
    } else if p < 0.001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.3}")
    }
}

/// A series as people name it: `benchmark.metric[.param]`, the benchmark not repeated when
/// the metric already starts with it (an LKP key: `netperf.Throughput_Mbps`, never
/// `netperf.netperf.Throughput_Mbps`).
pub fn series_name(benchmark: &str, title: &str) -> String {
    match title.strip_prefix(benchmark) {
        Some(rest) if rest.starts_with('.') => title.to_owned(),
        _ => format!("{benchmark}.{title}"),
    }
}

impl Alert {
    /// `metric` or `metric.param`, as trends title it.
    pub fn title(&self) -> String {
        if self.param.is_empty() {
            self.metric.to_string()
        } else {
            format!("{}.{}", self.metric, self.param)
        }
    }

    /// `regression` or `improvement`.
    pub fn verdict(&self) -> &'static str {
        if self.regression {
            "regression"
        } else {
            "improvement"
        }
    }
}

/// One triage change, or the creation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AlertEvent {
    pub id: i64,
    /// `new` (found by the detector), `awaiting` (reruns asked for), `confirmed` or
    /// `unconfirmed` (the reruns' verdict, or a person's), `bisecting` (a bisection started),
    /// `bisected` (moved to the culprit), `status` (a triage change).
    pub kind: String,
    pub at: String,
    pub actor: String,
    pub status: AlertStatus,
    pub note: String,
    pub assignee: String,
}

impl AlertEvent {
    /// What happened, as the alert's timeline names it.
    pub fn what(&self) -> String {
        match self.kind.as_str() {
            "new" => format!("found by the detector ({})", self.status),
            "awaiting" => "found by the detector; reruns asked for, to confirm it".into(),
            "confirmed" => format!("confirmed ({})", self.status),
            "unconfirmed" => "not confirmed by the reruns".into(),
            "bisecting" => "bisection by its alert rule".into(),
            "bisected" => "bisected: moved to its first bad commit".into(),
            _ => format!("status {}", self.status),
        }
    }
}

/// The metrics that changed for one benchmark and machine at one commit range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AlertSummary {
    pub id: i64,
    pub benchmark: crate::label::Label,
    pub machine: crate::label::Label,
    /// The last good and first bad points of the trend.
    pub good: CommitRef,
    pub bad: CommitRef,
    /// `repo/branch` of the history that orders the commits, when there is one.
    pub history: Option<String>,
    /// Commits strictly between `good` and `bad` in that history.
    pub between: Option<u32>,
    pub status: AlertStatus,
    pub note: String,
    pub assignee: String,
    /// The summary whose improvement undid this one's regression.
    pub fixed_by: Option<i64>,
    /// The summaries whose regressions this one's improvement undid.
    pub fixes: Vec<i64>,
    pub regressions: u32,
    pub improvements: u32,
    pub created_at: String,
    pub updated_at: String,
    /// Regressions first, each group by size of change.
    pub alerts: Vec<Alert>,
    /// What the reruns said (or that none came in time), once the confirmation is settled;
    /// `null` for a summary that was never awaiting confirmation or still is.
    #[serde(default)]
    pub confirmation: Option<String>,
    /// The reruns asked of robots and not yet all uploaded (`GET /api/v1/work`).
    #[serde(default)]
    pub requests: Vec<WorkRequest>,
    /// Only in `GET /api/v1/alerts/{id}`: every event, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<AlertEvent>,
    /// Only in `GET /api/v1/alerts/{id}`: its bisections (id, state), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bisections: Vec<(i64, String)>,
    /// Only in `GET /api/v1/alerts/{id}`, for a step between two commits: the other metrics
    /// that changed between them by lkp-tests' rules (seed 001's rows under the KPI), in its
    /// order, at most [`MAX_SUPPORTING`]; most have no direction and raise no alert of their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supporting: Vec<SupportingRow>,
    /// How many such rows there are in all (the report has every one).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub supporting_total: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What a request asks of a robot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum WorkKind {
    /// Rerun a commit of an alert awaiting confirmation.
    Confirm,
    /// Run a commit a bisection tests.
    Bisect,
}

/// Runs Perfline asks a robot for (`GET /api/v1/work?machine=M`): `runs` runs of `benchmark`
/// on `machine` built from `commit`. Any upload of that benchmark, machine and commit after
/// the request counts towards it (`request=ID` on the upload fills in what it leaves out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct WorkRequest {
    pub id: i64,
    pub kind: WorkKind,
    /// The alert summary it confirms.
    pub alert: Option<i64>,
    /// The bisection it serves.
    pub bisection: Option<i64>,
    pub benchmark: String,
    pub machine: String,
    /// The metric whose step the runs check (the uploads carry all the benchmark's).
    pub metric: String,
    pub param: String,
    /// The commit to build and run, as the trend names it.
    pub commit: String,
    /// The kernel label its runs had, for robots that name kernels rather than commits.
    pub kernel: String,
    /// Runs wanted in all, and runs uploaded so far.
    pub runs: u32,
    pub received: u32,
    pub reason: String,
    pub created_at: String,
    /// Who holds its runs and what went wrong last.
    #[serde(default)]
    pub lease: LeaseState,
}

/// The runs of a request robots hold (`POST /api/v1/work/{id}/claim`), and its last failure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct LeaseState {
    /// The robot that took runs last (none before any).
    pub holder: Option<String>,
    /// Runs promised in all (those received count) while the lease holds.
    pub handed: u32,
    /// When runs were taken last, and when the lease ends unless renewed (unix ms; 0: never).
    pub since: i64,
    pub until: i64,
    /// Runs given back failed, the last one's reason (`robot: what happened`) and time.
    pub failures: u32,
    pub last_failure: Option<String>,
    pub last_failure_at: Option<i64>,
}

impl LeaseState {
    /// Whether the lease holds at `now` (unix ms).
    pub fn holds(&self, now: i64) -> bool {
        self.until > now
    }
}

/// `POST /api/v1/work/{id}/claim`: take up to `runs` runs of a request for `robot`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Claim {
    /// The robot's name (`perfline work --robot`, by default its machine and host).
    #[cfg_attr(feature = "ssr", schema(value_type = String))]
    pub robot: crate::label::Label,
    pub runs: u32,
}

/// `POST /api/v1/work/{id}/renew` and `…/release`: the robot, and why it gives runs back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct LeaseHolder {
    #[cfg_attr(feature = "ssr", schema(value_type = String))]
    pub robot: crate::label::Label,
    /// What happened (release only; at most 500 characters are kept).
    #[serde(default)]
    pub reason: Option<String>,
    /// Runs given back (release only; default 1): the failed run and those taken with it.
    #[serde(default)]
    pub runs: Option<u32>,
}

/// Runs a robot holds: run them, renewing every `renew_every_ms` until each is uploaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Lease {
    pub request: i64,
    /// Runs taken now (0: every run is taken or in).
    pub runs: u32,
    /// Unix ms.
    pub until: i64,
    pub renew_every_ms: u64,
}

/// A robot the server has seen (`GET /api/v1/robots`, the dashboard).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Robot {
    pub name: String,
    pub machine: String,
    /// Unix ms.
    pub first_seen: i64,
    pub last_seen: i64,
    /// What it did last (`took 3 runs of request 7`, `gave back request 7: exit status 1`).
    pub last_work: String,
    /// Not seen for three leases while it held or asked for work.
    pub silent: bool,
}

/// `GET /api/v1/robots`'s answer, the most recently seen first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RobotList {
    pub robots: Vec<Robot>,
}

/// `GET /api/v1/work`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct WorkList {
    pub requests: Vec<WorkRequest>,
}

/// The most supporting rows a summary carries.
pub const MAX_SUPPORTING: usize = 100;

/// A metric that changed at a summary's step alongside its alerts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SupportingRow {
    pub metric: String,
    /// The direction Perfline knows for it (`unknown` for most of a job's keys).
    pub direction: crate::label::Direction,
    /// The means over the good and the bad commit's runs (a failure key: its summed counts).
    pub before: f64,
    pub after: f64,
    /// The change as lkp-tests prints it: in percent, or absolute (`absolute`) for
    /// `perf-profile` and `…%` keys and for a failure key's %reproduction.
    pub change: f64,
    pub absolute: bool,
}

impl AlertSummary {
    /// The alert that leads the subject: the largest regression, else the largest improvement.
    pub fn lead(&self) -> Option<&Alert> {
        self.alerts.first()
    }

    /// Like LKP's: `netperf.Throughput_Mbps -6.1% regression on lkp-bdw-de1 at a337531b94`,
    /// plus how many other metrics changed.
    pub fn subject(&self) -> String {
        let Some(lead) = self.lead() else {
            return format!(
                "{} on {} at {}",
                self.benchmark,
                self.machine,
                self.bad.short()
            );
        };
        let others = self.alerts.len() - 1;
        format!(
            "{} {:+.1}% {} on {} at {}{}",
            series_name(&self.benchmark, &lead.title()),
            lead.change_pct,
            lead.verdict(),
            self.machine,
            self.bad.short(),
            match others {
                0 => String::new(),
                1 => " (and 1 more metric)".into(),
                n => format!(" (and {n} more metrics)"),
            }
        )
    }

    /// Where to bisect: the command with both commits, or the kernel versions to build.
    pub fn bisect(&self) -> String {
        match self.bisect_command(false) {
            Some(command) => format!("{command}{}", self.bisect_distance()),
            None => self.bisect_versions(),
        }
    }

    /// `git bisect start <bad> <good>`, with 12-digit shas if `short` (as in mails, to stay
    /// within 80 columns), each quoted for a shell; `None` when the runs named no commits.
    pub fn bisect_command(&self, short: bool) -> Option<String> {
        let (good, bad) = (self.good.sha.as_deref()?, self.bad.sha.as_deref()?);
        let (good, bad) = if short {
            (
                crate::text::short_commit(good),
                crate::text::short_commit(bad),
            )
        } else {
            (good, bad)
        };
        Some(format!(
            "git bisect start {} {}",
            crate::shell::quote(bad),
            crate::shell::quote(good)
        ))
    }

    /// How far apart the two commits are: `; 41 commits between them in linux/master (about
    /// 6 steps)`.
    pub fn bisect_distance(&self) -> String {
        let history = self.history.as_deref().unwrap_or("the history");
        match self.between {
            Some(0) => format!(
                "; no commits between them in {history}: {} is the first bad commit",
                self.bad.name()
            ),
            Some(n) => {
                let steps = (f64::from(n) + 1.0).log2().ceil() as u32;
                format!(
                    "; {n} commit{} between them in {history} (about {steps} step{})",
                    if n == 1 { "" } else { "s" },
                    if steps == 1 { "" } else { "s" },
                )
            }
            None => {
                " (their distance is unknown: upload the history with POST /api/v1/commits)".into()
            }
        }
    }

    /// Where to look when only kernel versions are known.
    pub fn bisect_versions(&self) -> String {
        format!(
            "between kernel {} (last good) and kernel {} (first bad); the runs named no commits, so bisect between those versions' tags",
            self.good.kernel, self.bad.kernel
        )
    }

    /// The page's query string for the trend of `alert` with the commit range highlighted.
    pub fn trend_query(&self, alert: &Alert) -> String {
        let mut q = vec![
            ("benchmark", self.benchmark.as_str()),
            ("machine", self.machine.as_str()),
            ("metric", alert.metric.as_str()),
        ];
        if !alert.param.is_empty() {
            q.push(("param", alert.param.as_str()));
        }
        q.push(("good", self.good.name()));
        q.push(("bad", self.bad.name()));
        query_string(&q)
    }

    /// The comparison page's query of the step: its two commits when both are known (a robot
    /// uploads many commits under one kernel version), else its two kernels.
    pub fn compare_query(&self) -> String {
        let (what, columns) = match (&self.good.sha, &self.bad.sha) {
            (Some(good), Some(bad)) => ("commits", format!("{good},{bad}")),
            _ => (
                "kernels",
                format!("{},{}", self.good.kernel, self.bad.kernel),
            ),
        };
        query_string(&[
            ("benchmark", self.benchmark.as_str()),
            ("machine", self.machine.as_str()),
            (what, &columns),
        ])
    }

    /// `/api/v1/report`'s query, when both commits are known.
    pub fn report_query(&self) -> Option<String> {
        Some(query_string(&[
            ("benchmark", self.benchmark.as_str()),
            ("machine", self.machine.as_str()),
            ("base", self.good.sha.as_deref()?),
            ("bad", self.bad.sha.as_deref()?),
        ]))
    }
}

/// `k=v&k=v` with the values percent-encoded.
pub fn query_string(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// A page of summaries, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AlertPage {
    pub summaries: Vec<AlertSummary>,
    /// Summaries matching the filter.
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

/// What `GET /api/v1/alerts` and the alerts page filter by.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams), into_params(parameter_in = Query))]
pub struct AlertFilter {
    /// `open` (new, acknowledged, investigating, awaiting-confirmation), `all`, or one status
    /// (or several, comma-separated).
    pub status: Option<String>,
    pub benchmark: Option<String>,
    pub machine: Option<String>,
    /// Summaries with an alert on this metric (its whole name).
    pub metric: Option<String>,
    /// `regression` or `improvement`: summaries with at least one such alert.
    pub direction: Option<String>,
    /// Summaries created at or after this time (`2026-12-01` or `2026-12-01T10:00:00Z`).
    pub since: Option<String>,
    /// 1..=500 (default 50).
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

/// A triage change: any of the three.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AlertPatch {
    pub status: Option<AlertStatus>,
    pub note: Option<String>,
    pub assignee: Option<String>,
    /// With `fixed`: the summary whose improvement fixed it.
    pub fixed_by: Option<i64>,
}

/// The longest triage note.
pub const MAX_NOTE: usize = 4000;

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(good: Option<&str>, bad: Option<&str>, between: Option<u32>) -> AlertSummary {
        AlertSummary {
            id: 1,
            benchmark: crate::label::Label::parse("netperf").unwrap(),
            machine: crate::label::Label::parse("lkp-bdw-de1").unwrap(),
            good: CommitRef {
                kernel: "v6.1".into(),
                sha: good.map(Into::into),
            },
            bad: CommitRef {
                kernel: "v6.2".into(),
                sha: bad.map(Into::into),
            },
            history: Some("linux/master".into()),
            between,
            status: AlertStatus::New,
            note: String::new(),
            assignee: String::new(),
            fixed_by: None,
            fixes: vec![],
            regressions: 1,
            improvements: 0,
            created_at: String::new(),
            updated_at: String::new(),
            supporting: vec![],
            supporting_total: 0,
            confirmation: None,
            requests: Vec::new(),
            bisections: Vec::new(),
            alerts: vec![Alert {
                id: 1,
                metric: crate::label::Metric::parse("Throughput_Mbps").unwrap(),
                param: String::new(),
                unit: None,
                direction: crate::label::Direction::Higher,
                regression: true,
                before: 100.0,
                after: 93.9,
                change_pct: -6.1,
                p_value: 0.001,
                points_before: 10,
                points_after: 5,
                spark: vec![],
                spark_step: 0,
                evidence: None,
            }],
            events: vec![],
        }
    }

    #[test]
    fn subject_and_bisect_read_like_the_robot() {
        let s = summary(Some("1111111111aa"), Some("a337531b94ff"), Some(41));
        // Both commits known: the comparison is of the step's commits, not its kernels.
        assert_eq!(
            s.compare_query(),
            "benchmark=netperf&machine=lkp-bdw-de1&commits=1111111111aa%2Ca337531b94ff"
        );
        assert_eq!(
            s.subject(),
            "netperf.Throughput_Mbps -6.1% regression on lkp-bdw-de1 at a337531b94ff"
        );
        assert_eq!(
            s.bisect(),
            "git bisect start a337531b94ff 1111111111aa; 41 commits between them in linux/master (about 6 steps)"
        );
        let s = summary(None, None, None);
        assert!(s
            .bisect()
            .starts_with("between kernel v6.1 (last good) and kernel v6.2"));
        assert_eq!(s.report_query(), None);
        assert_eq!(
            s.compare_query(),
            "benchmark=netperf&machine=lkp-bdw-de1&kernels=v6.1%2Cv6.2"
        );
        // A commit stored before commits had to be hex is quoted for the shell, in full and
        // cut to 12 characters (audit 2026-12-06 #7).
        let s = summary(Some("1111111111aa"), Some("$(reboot);x"), Some(41));
        assert_eq!(
            s.bisect_command(false).unwrap(),
            "git bisect start '$(reboot);x' 1111111111aa"
        );
        assert!(s
            .bisect_command(true)
            .unwrap()
            .starts_with("git bisect start '$(reboot);x' "));
    }

    #[test]
    fn statuses_parse_and_refuse() {
        for s in AlertStatus::ALL {
            assert_eq!(AlertStatus::try_from(s.as_str().to_owned()), Ok(s));
        }
        assert!(AlertStatus::try_from("closed".to_owned()).is_err());
        assert!(AlertStatus::Investigating.is_open());
        assert!(!AlertStatus::Wontfix.is_open());
    }
}
