// SPDX-License-Identifier: GPL-3.0-or-later
//! `perfline compare`: the server's table, and with `--fail-on-regression` the exit code a CI
//! job reads.

use super::http::*;
use super::*;
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub client: Client,
    #[arg(long)]
    pub benchmark: String,
    #[arg(long)]
    pub machine: String,
    /// Kernels, the baseline first: `5.4.0,5.5.0`.
    #[arg(long)]
    pub kernels: String,
    /// Only this metric.
    #[arg(long)]
    pub metric: Option<String>,
    /// LKP's `%change` report instead of mmtests' table.
    #[arg(long, conflicts_with = "ratio")]
    pub lkp: bool,
    /// mmtests' `--print-ratio` table.
    #[arg(long)]
    pub ratio: bool,
    /// Exit 3 when a kernel is significantly worse than the baseline (mmtests' significance;
    /// with `--lkp`, LKP's "changed" rule).
    #[arg(long)]
    pub fail_on_regression: bool,
}

pub(super) async fn compare(a: CompareArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let base = [
        ("benchmark", Some(a.benchmark.as_str())),
        ("machine", Some(a.machine.as_str())),
        ("kernels", Some(a.kernels.as_str())),
        ("metric", a.metric.as_deref()),
    ];
    let mut text_query = base.to_vec();
    text_query.push(("format", Some("text")));
    if a.lkp {
        text_query.push(("style", Some("lkp")));
    }
    if a.ratio {
        text_query.push(("ratio", Some("1")));
    }
    let text = http
        .get_text(&format!("/api/v1/compare?{}", query(&text_query)))
        .await?;
    print_text(&text);
    if !a.fail_on_regression {
        return Ok(Outcome::Done);
    }
    let mut json_query = base.to_vec();
    json_query.push(("format", Some("json")));
    let c: app::compare::Comparison = http
        .get_json(&format!("/api/v1/compare?{}", query(&json_query)))
        .await?;
    Ok(match regressions(&c, a.lkp).as_slice() {
        [] => Outcome::Done,
        found => Outcome::Regression(found.join(", ")),
    })
}

/// The rows and kernels worse than the baseline: mmtests' significant regressions, or with
/// `lkp` the changes LKP's rule calls real in the worse direction.
pub(super) fn regressions(c: &app::compare::Comparison, lkp: bool) -> Vec<String> {
    use app::compare::Verdict;
    use app::label::Direction;
    let mut found = Vec::new();
    for row in &c.rows {
        for (i, cell) in row.cells.iter().enumerate().skip(1) {
            let Some(cell) = cell else { continue };
            let worse = if lkp {
                let change = cell.lkp_change.unwrap_or(0.0);
                cell.lkp_changed
                    && match row.direction {
                        Direction::Higher => change < 0.0,
                        Direction::Lower => change > 0.0,
                        // A change, neither better nor worse.
                        Direction::Unknown => false,
                    }
            } else {
                cell.verdict == Verdict::Regression
            };
            if worse {
                let kernel = c.runs.get(i).map_or("?", |k| k.kernel.as_str());
                found.push(format!("{} on {kernel}", row.label));
            }
        }
    }
    found
}
