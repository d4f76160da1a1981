// SPDX-License-Identifier: GPL-3.0-or-later
//! What the admin's console asks beyond the other services: a preview of what a set of alert
//! rules would have raised over the last [`PREVIEW_DAYS`] days of stored series, the alert
//! rules in words, and the notification settings with every secret left out.
//!
//! The preview runs the detector's own test ([`detect::newest_step`]) over each series'
//! trend: the newest step that passes the series' rule, then the newest before it, and so on
//! back to the window's start (at most [`STEPS_PER_SERIES`]), which is what the detector would
//! have raised as the runs came in, give or take a step it merged with a neighbour. The work is
//! bounded: at most [`PREVIEW_MAX_SERIES`] series (those a rule names first, then the rest, in
//! byte order), their trends read `TRENDS_AT_ONCE` at a time, the tests on a `Heavy` thread,
//! and no new batch of series started after [`PREVIEW_TIME`].

use app::console::{NotifySettings, PreviewAlert, RulePreview, RuleRow, RuleSet};
use app::label::{Direction, Label, Metric, Param};
use app::trend::TrendQuery;

use super::alerts::detect::{self, Rule, MAX_RULES};
use super::{ServiceError, Services};

/// The days of stored series the preview looks at.
pub const PREVIEW_DAYS: u32 = 90;
/// The most series one preview examines.
pub const PREVIEW_MAX_SERIES: usize = 400;
/// The most steps found per series.
pub const STEPS_PER_SERIES: usize = 8;
/// The most alerts a preview lists (the rest are counted).
pub const PREVIEW_MAX_ALERTS: usize = 200;
/// Trends read at once.
const TRENDS_AT_ONCE: usize = 64;
/// The time after which a preview examines no more series (the ones examined are said).
pub const PREVIEW_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// Parses the rules editor's JSON (`[...]` or `{"rules": [...]}`) and checks every rule.
pub fn parse_rules(json: &str) -> Result<Vec<Rule>, ServiceError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Wrapped {
        rules: Vec<Rule>,
    }
    let trimmed = json.trim();
    let rules = if trimmed.starts_with('[') {
        serde_json::from_str::<Vec<Rule>>(trimmed)
    } else {
        serde_json::from_str::<Wrapped>(trimmed).map(|w| w.rules)
    }
    .map_err(|e| ServiceError::Invalid(format!("the rules do not read: {e}")))?;
    if rules.len() > MAX_RULES {
        return Err(ServiceError::Invalid(format!("at most {MAX_RULES} rules")));
    }
    for (i, r) in rules.iter().enumerate() {
        r.check()
            .map_err(|e| ServiceError::Invalid(format!("rule {}: {e}", i + 1)))?;
    }
    Ok(rules)
}

/// A rule's settings in words, the defaults for what it leaves unset.
fn settings_words(r: &Rule) -> String {
    if r.ignore {
        return "ignored: never alerts".to_owned();
    }
    let s = detect::settings_for(std::slice::from_ref(r), &r.benchmark, &r.metric, "");
    let mut words = vec![
        format!("min change {} %", s.min_change_pct),
        format!("alpha {}", s.alpha),
        format!("{} points before, {} after", s.min_before, s.min_after),
        format!("local t at least {}", s.min_local_t),
        if s.confirm {
            "confirmed by reruns".to_owned()
        } else {
            "announced at once".to_owned()
        },
    ];
    if let Some(d) = r.direction {
        words.push(format!("{} is better", d.as_str()));
    }
    if let Some(h) = &r.history {
        words.push(format!("history {h}"));
    }
    if r.bisects() {
        words.push("bisects".to_owned());
    }
    words.join(", ")
}

/// The rules as the console shows them: a table, and the editor's JSON.
pub fn rule_set(rules: &[Rule]) -> RuleSet {
    let d = detect::Settings::default();
    RuleSet {
        rows: rules
            .iter()
            .map(|r| RuleRow {
                benchmark: r.benchmark.clone(),
                metric: r.metric.clone(),
                settings: settings_words(r),
            })
            .collect(),
        json: serde_json::to_string_pretty(rules).unwrap_or_else(|_| "[]".to_owned()),
        defaults: format!(
            "Series no rule matches: min change {} %, alpha {}, {} points before and {} after, local t at least {}, confirmed by reruns.",
            d.min_change_pct, d.alpha, d.min_before, d.min_after, d.min_local_t
        ),
    }
}

/// `scheme://host[:port]` of a URL, without user, password, path or query (where a webhook's
/// key often is).
pub fn redact_url(raw: &str) -> String {
    let Some((scheme, rest)) = raw.split_once("://") else {
        return "(not a URL)".to_owned();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let hidden = rest.len() > authority.len() || authority.contains('@');
    format!("{scheme}://{host}{}", if hidden { "/…" } else { "" })
}

/// One series the preview examines.
struct Candidate {
    query: TrendQuery,
    /// The first run id of the window on its benchmark and machine.
    first_run: i64,
    rule: Option<usize>,
    settings: detect::Settings,
}

impl Services {
    /// What `rules` would have raised over the last [`PREVIEW_DAYS`] days.
    pub async fn preview_rules(&self, rules: &[Rule]) -> Result<RulePreview, ServiceError> {
        let groups = self.store.recent_series_groups(PREVIEW_DAYS).await?;
        let globs: Vec<Option<crate::domain::alert_rule::Globs>> =
            rules.iter().map(Rule::globs).collect();
        let mut named = Vec::new();
        let mut others = Vec::new();
        let (mut series_total, mut ignored) = (0, 0);
        for (benchmark, machine, first_run) in groups {
            let (Ok(b), Ok(m)) = (Label::parse(&benchmark), Label::parse(&machine)) else {
                continue;
            };
            for (metric, param) in self.store.trend_choices(&benchmark, &machine).await? {
                series_total += 1;
                let rule = globs.iter().position(|g| {
                    g.as_ref()
                        .is_some_and(|g| g.matches(&benchmark, &metric, &param))
                });
                let settings = detect::settings_for(rules, &benchmark, &metric, &param);
                if settings.ignore {
                    ignored += 1;
                    continue;
                }
                if named.len() >= PREVIEW_MAX_SERIES {
                    continue;
                }
                let (Ok(metric), Ok(param)) = (Metric::parse(&metric), Param::parse(&param)) else {
                    continue;
                };
                let c = Candidate {
                    query: TrendQuery {
                        benchmark: b.clone(),
                        machine: m.clone(),
                        metric,
                        param,
                        history: None,
                    },
                    first_run,
                    rule,
                    settings,
                };
                if rule.is_some() {
                    named.push(c);
                } else if others.len() < PREVIEW_MAX_SERIES {
                    others.push(c);
                }
            }
        }
        let mut candidates = named;
        let room = PREVIEW_MAX_SERIES.saturating_sub(candidates.len());
        candidates.extend(others.into_iter().take(room));
        let started = std::time::Instant::now();
        let mut examined = 0;
        let mut out_of_time = false;
        let mut alerts = Vec::new();
        for chunk in candidates.chunks(TRENDS_AT_ONCE) {
            if started.elapsed() > PREVIEW_TIME {
                out_of_time = true;
                break;
            }
            examined += chunk.len();
            let trends = self
                .trends_of(chunk.iter().map(|c| c.query.clone()).collect())
                .await?;
            // The series' per-commit means, where the window starts, and its rule.
            let mut inputs = Vec::new();
            for (c, trend) in chunk.iter().zip(trends) {
                let trend = match trend {
                    Ok(t) => t,
                    Err(ServiceError::NotFound(_)) => continue,
                    Err(e) => return Err(e),
                };
                if !trend.direction.is_known() {
                    continue;
                }
                let Some(start) = trend
                    .points
                    .iter()
                    .position(|p| p.runs.iter().any(|r| r.id >= c.first_run))
                else {
                    continue;
                };
                let means: Vec<f64> = trend.points.iter().map(|p| p.mean).collect();
                inputs.push((c, trend, means, start));
            }
            let work: Vec<(Vec<f64>, detect::Settings, usize)> = inputs
                .iter()
                .map(|(c, _, means, start)| (means.clone(), c.settings, *start))
                .collect();
            let found = self
                .heavy
                .run(move || {
                    work.iter()
                        .map(|(x, s, start)| steps_since(x, s, *start))
                        .collect::<Vec<_>>()
                })
                .await?;
            for ((c, trend, _, _), steps) in inputs.iter().zip(found) {
                for step in steps {
                    let Some(point) = trend.points.get(step.index) else {
                        continue;
                    };
                    let regression = match trend.direction {
                        Direction::Higher => step.after < step.before,
                        Direction::Lower => step.after > step.before,
                        Direction::Unknown => false,
                    };
                    let mut q = vec![
                        ("benchmark", c.query.benchmark.to_string()),
                        ("machine", c.query.machine.to_string()),
                        ("metric", c.query.metric.to_string()),
                    ];
                    if !c.query.param.is_empty() {
                        q.push(("param", c.query.param.to_string()));
                    }
                    let trend_link = format!(
                        "/trend?{}",
                        q.iter()
                            .map(|(k, v)| format!("{k}={}", app::url::encode(v)))
                            .collect::<Vec<_>>()
                            .join("&")
                    );
                    alerts.push(PreviewAlert {
                        benchmark: c.query.benchmark.to_string(),
                        machine: c.query.machine.to_string(),
                        series: trend.title(),
                        rule: c.rule.map(|i| i + 1),
                        at: point.sha.as_deref().map_or_else(
                            || point.kernel.clone(),
                            |s| app::text::head(s, 12).to_owned(),
                        ),
                        before: step.before,
                        after: step.after,
                        change_pct: step.change_pct,
                        p_value: step.p_value,
                        regression,
                        trend: trend_link,
                    });
                }
            }
        }
        let found = alerts.len();
        alerts.truncate(PREVIEW_MAX_ALERTS);
        Ok(RulePreview {
            days: PREVIEW_DAYS,
            series_total,
            examined,
            cap: PREVIEW_MAX_SERIES,
            ignored,
            out_of_time,
            alerts_left_out: found - alerts.len(),
            alerts,
        })
    }

    /// The notification settings, without secrets.
    pub async fn notify_settings(&self) -> Result<NotifySettings, ServiceError> {
        let c = &self.config;
        Ok(NotifySettings {
            alerts_enabled: !c.no_alerts,
            webhooks: c.webhooks.iter().map(|w| redact_url(w)).collect(),
            webhook_signed: c.webhook_secret.is_some(),
            internal_webhooks_allowed: c.allow_internal_webhooks,
            smtp: c.smtp.as_deref().map(redact_url),
            smtp_credentials: std::env::var_os("PERFLINE_SMTP_USER").is_some()
                || std::env::var_os("PERFLINE_SMTP_PASSWORD").is_some()
                || c.smtp.as_deref().is_some_and(|u| {
                    u.split_once("://")
                        .is_some_and(|(_, rest)| rest.split('/').next().unwrap_or("").contains('@'))
                }),
            mail_from: c.mail_from.clone(),
            mail_to: c.mail_to.clone(),
            outbox: self.store.outbox_waiting().await?,
        })
    }
}

/// The steps of `x` the detector would have raised from point `start` on: the newest, then
/// the newest before it, ... (newest first, at most [`STEPS_PER_SERIES`]).
fn steps_since(x: &[f64], settings: &detect::Settings, start: usize) -> Vec<detect::Step> {
    let mut steps = Vec::new();
    let mut end = x.len();
    while steps.len() < STEPS_PER_SERIES {
        let Some(step) = detect::newest_step(&x[..end], settings, None) else {
            break;
        };
        if step.index < start || step.index >= end {
            break;
        }
        end = step.index;
        steps.push(step);
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_keep_only_scheme_and_host() {
        assert_eq!(
            redact_url("https://hooks.example.com/services/T0/B0/secret"),
            "https://hooks.example.com/…"
        );
        assert_eq!(
            redact_url("smtps://user:pw@mail.example.org:465"),
            "smtps://mail.example.org:465/…"
        );
        assert_eq!(redact_url("smtp://relay:25"), "smtp://relay:25");
        assert_eq!(redact_url("https://h.example?key=1"), "https://h.example/…");
    }

    #[test]
    fn rules_parse_in_either_shape_and_are_checked() {
        let rules = parse_rules(r#"[{"benchmark": "netperf*", "min_change_pct": 5}]"#).unwrap();
        assert_eq!(rules[0].min_change_pct, Some(5.0));
        assert_eq!(
            parse_rules(r#"{"rules": [{"metric": "x", "ignore": true}]}"#).unwrap()[0].benchmark,
            "*"
        );
        let e = parse_rules(r#"[{"alpha": 0.9}]"#).unwrap_err().to_string();
        assert!(e.contains("rule 1: alpha"), "{e}");
        assert!(parse_rules("[{\"nope\": 1}]").is_err());
        let set = rule_set(&rules);
        assert!(
            set.rows[0].settings.contains("min change 5 %"),
            "{:?}",
            set.rows
        );
        assert_eq!(
            parse_rules(&set.json).unwrap(),
            rules,
            "the JSON reads back"
        );
    }

    #[test]
    fn the_steps_found_go_back_to_the_window() {
        // Three levels: 100, then 120 from point 20, then 100 again from point 40.
        let mut x: Vec<f64> = Vec::new();
        for i in 0..60 {
            let level = if (20..40).contains(&i) { 120.0 } else { 100.0 };
            x.push(level + f64::from(i % 3) * 0.2);
        }
        let s = detect::Settings::default();
        let all = steps_since(&x, &s, 0);
        let at: Vec<usize> = all.iter().map(|s| s.index).collect();
        assert_eq!(at, [40, 20], "{all:?}");
        assert_eq!(
            steps_since(&x, &s, 30).len(),
            1,
            "only the step in the window"
        );
    }
}
