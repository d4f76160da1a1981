// SPDX-License-Identifier: GPL-3.0-or-later
//! Bisections on the wire: a bisection Perfline drives (`POST /api/v1/bisections`), its tested
//! commits and verdicts, what to run next, and the `git bisect log` it ends with.

use serde::{Deserialize, Serialize};

/// Where a bisection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum BisectionState {
    Running,
    /// The bounds met: `culprit` is the first bad commit.
    Done,
    /// It cannot tell (no step between the ends, or one within the noise): `reason` says why.
    Failed,
    Cancelled,
}

impl BisectionState {
    pub fn as_str(self) -> &'static str {
        match self {
            BisectionState::Running => "running",
            BisectionState::Done => "done",
            BisectionState::Failed => "failed",
            BisectionState::Cancelled => "cancelled",
        }
    }

    pub fn parse(raw: &str) -> Option<BisectionState> {
        [
            BisectionState::Running,
            BisectionState::Done,
            BisectionState::Failed,
            BisectionState::Cancelled,
        ]
        .into_iter()
        .find(|s| s.as_str() == raw)
    }
}

impl std::fmt::Display for BisectionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One commit the bisection ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TestedCommit {
    pub commit: String,
    pub subject: Option<String>,
    /// Runs uploaded since the bisection started, and their mean.
    pub runs: u32,
    pub mean: Option<f64>,
    /// `good`, `bad`, `unsure` (still running) or `skip`.
    pub verdict: String,
    /// Decided at the run cap on the balance of the evidence, not sure.
    #[serde(default)]
    pub forced: bool,
}

/// One event of a bisection's audit trail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BisectionEvent {
    pub at: String,
    pub actor: String,
    /// `start`, `verdict`, `done`, `failed`, `cancelled`.
    pub kind: String,
    pub detail: String,
}

/// A bisection as `GET /api/v1/bisections/{id}` answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Bisection {
    pub id: i64,
    pub state: BisectionState,
    /// The alert summary it was started from.
    pub alert: Option<i64>,
    pub benchmark: String,
    pub machine: String,
    pub metric: String,
    pub param: String,
    /// `repo/branch` of the history it bisects.
    pub history: String,
    /// The current bounds: the last good and the first bad commit.
    pub good: String,
    pub bad: String,
    pub culprit: Option<String>,
    pub culprit_subject: Option<String>,
    pub reason: Option<String>,
    pub suspicious: Option<String>,
    pub runs_total: u32,
    pub max_runs: u32,
    /// Commits between the bounds, not counting them.
    pub remaining: u32,
    /// Tested commits in history order.
    pub tested: Vec<TestedCommit>,
    /// What to run next, while running.
    pub next: Option<NextRun>,
    /// The pending request's lease: who holds its runs, since and until when, what failed last.
    #[serde(default)]
    pub lease: Option<crate::alerts::LeaseState>,
    pub created_by: String,
    pub created_at: String,
    pub updated_at: String,
    /// Only in `GET /api/v1/bisections/{id}`: every event, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<BisectionEvent>,
}

/// `GET /api/v1/bisections/{id}/next`: the commit to run and how many runs it needs now
/// (`commit` null while every commit handed out is still being run, or when not running).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NextRun {
    pub state: BisectionState,
    pub commit: Option<String>,
    pub runs: u32,
    /// The work request the runs belong to: renew its lease while running
    /// (`POST /api/v1/work/{id}/renew`), give a failed run back (`…/release`).
    #[serde(default)]
    pub request: Option<i64>,
    /// When the runs taken stop being promised unless renewed (unix ms), and how often to renew.
    #[serde(default)]
    pub until: i64,
    #[serde(default)]
    pub renew_every_ms: u64,
    /// With no commit while running: what the bisection waits for (`robot X holds 2 runs of
    /// 1a2b3c4d5e6f until …`).
    #[serde(default)]
    pub waiting: Option<String>,
}

/// `GET /api/v1/bisections`'s answer, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BisectionList {
    pub bisections: Vec<Bisection>,
}

/// `POST /api/v1/bisections`: from an alert summary, or from a series and two commits.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NewBisection {
    pub alert: Option<i64>,
    pub benchmark: Option<String>,
    pub machine: Option<String>,
    pub metric: Option<String>,
    pub param: Option<String>,
    /// `repo/branch`.
    pub history: Option<String>,
    pub good: Option<String>,
    pub bad: Option<String>,
    /// The most runs of one commit (1..=200, default 30).
    pub max_runs: Option<u32>,
}
