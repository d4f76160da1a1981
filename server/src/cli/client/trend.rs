// SPDX-License-Identifier: GPL-3.0-or-later
//! `perfline trend`: the ASCII chart, and with `--fail-on-regression` whether the newest step
//! is one an alert would name.

use super::http::*;
use super::*;
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct TrendArgs {
    #[command(flatten)]
    pub client: Client,
    #[arg(long)]
    pub benchmark: String,
    #[arg(long)]
    pub machine: String,
    #[arg(long)]
    pub metric: String,
    #[arg(long)]
    pub param: Option<String>,
    /// Order by this uploaded history (`repo/branch`).
    #[arg(long)]
    pub history: Option<String>,
    #[arg(long, default_value_t = 80)]
    pub width: usize,
    #[arg(long, default_value_t = 20)]
    pub height: usize,
    /// Exit 3 when the newest commits are a significant step for the worse, by the server's
    /// alert rules (the step an alert would be raised for).
    #[arg(long)]
    pub fail_on_regression: bool,
}

pub(super) async fn trend(a: TrendArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let width = a.width.to_string();
    let height = a.height.to_string();
    let q = [
        ("benchmark", Some(a.benchmark.as_str())),
        ("machine", Some(a.machine.as_str())),
        ("metric", Some(a.metric.as_str())),
        ("param", a.param.as_deref()),
        ("history", a.history.as_deref()),
    ];
    let mut text_query = q.to_vec();
    text_query.extend([
        ("format", Some("text")),
        ("width", Some(width.as_str())),
        ("height", Some(height.as_str())),
    ]);
    let text = http
        .get_text(&format!("/api/v1/trend?{}", query(&text_query)))
        .await?;
    print_text(&text);
    if !a.fail_on_regression {
        return Ok(Outcome::Done);
    }
    let mut json_query = q.to_vec();
    json_query.push(("format", Some("json")));
    let t: app::trend::Trend = http
        .get_json(&format!("/api/v1/trend?{}", query(&json_query)))
        .await?;
    let rules: RulesAnswer = http.get_json("/api/v1/alert-rules").await?;
    let settings = crate::services::alerts::detect::settings_for(
        &rules.rules,
        &a.benchmark,
        &a.metric,
        a.param.as_deref().unwrap_or(""),
    );
    Ok(match newest_regression(&t, &settings) {
        Some(why) => Outcome::Regression(why),
        None => Outcome::Done,
    })
}

#[derive(serde::Deserialize)]
pub(super) struct RulesAnswer {
    rules: Vec<crate::services::alerts::detect::Rule>,
}

/// The step at the trend's newest commits that an alert would name, when it is for the worse.
pub(super) fn newest_regression(
    t: &app::trend::Trend,
    settings: &crate::services::alerts::detect::Settings,
) -> Option<String> {
    use app::label::Direction;
    let means: Vec<f64> = t.points.iter().map(|p| p.mean).collect();
    let step = crate::services::alerts::detect::newest_step(&means, settings, None)?;
    let worse = match t.direction {
        Direction::Higher => step.after < step.before,
        Direction::Lower => step.after > step.before,
        // A change, neither better nor worse: no regression.
        Direction::Unknown => false,
    };
    if !worse {
        return None;
    }
    let at = &t.points[step.index];
    Some(format!(
        "{} changed {:+.2}% at {} ({}), p = {:.2e}, {} commits before and {} after",
        t.title(),
        step.change_pct,
        at.sha
            .as_deref()
            .map_or(at.kernel.as_str(), app::text::short_commit),
        at.kernel,
        step.p_value,
        step.points_before,
        step.points_after
    ))
}
