// SPDX-License-Identifier: GPL-3.0-or-later
//! Perfline's detector against the robot's bisect-confirmed reports (issue 56, point 4): the
//! mails until 2021 plot, for each metric that changed, the samples of the robot's bisection,
//! bisect-good (`+`) and bisect-bad (`O`); the robot's verdict is that the metric moved at the
//! first bad commit. Each plot becomes an LKP-shaped series, one sample a commit, the good
//! ones in their order and then the bad ones, and goes through the alert pipeline one commit
//! at a time (the rule defaults, no reruns), beside a t test like Perfherder's on the same
//! series. Printed: per mail, where each detector alerted on the headline KPI; then how many
//! of the robot's findings each would have raised, and at which commit (exactly the first bad
//! one, or within 5).
//!
//! `cargo bench -p perfline-server --bench lkp_reports` (`LKP_REPORTS_VERBOSE=1` for every
//! plot).
//!
//! Caveat, printed too: a plot gives the samples' order within each side, not the commits'
//! order across the bisection, and each value is read within half a text row.

// (Its own `allow(dead_code)` covers the REALISE loader and tallies this bench leaves unused.)
#[path = "../tests/it/realise_score.rs"]
mod realise_score;

use std::path::Path;

use perfline_server::ingest::lkp_mail;
use perfline_server::services::alerts::detect::Settings;

/// Where the first alert near the truth landed: `Some(offset)` (0 = at the first bad commit).
fn landed(alerts: &[usize], truth: usize) -> Option<isize> {
    alerts
        .iter()
        .map(|&a| a as isize - truth as isize)
        .filter(|d| d.unsigned_abs() <= realise_score::MARGIN)
        .min_by_key(|d| d.unsigned_abs())
}

#[derive(Default)]
struct Score {
    series: usize,
    found: usize,
    exact: usize,
    /// Alerts away from the first bad commit (false alarms on the series).
    stray: usize,
}

impl Score {
    fn add(&mut self, alerts: &[usize], truth: usize) -> Option<isize> {
        self.series += 1;
        let at = landed(alerts, truth);
        if let Some(d) = at {
            self.found += 1;
            if d == 0 {
                self.exact += 1;
            }
        }
        self.stray += alerts
            .iter()
            .filter(|&&a| a.abs_diff(truth) > realise_score::MARGIN)
            .count();
        at
    }

    fn line(&self) -> String {
        format!(
            "{} of {} found ({} at the first bad commit), {} alerts elsewhere",
            self.found, self.series, self.exact, self.stray
        )
    }
}

fn at(d: Option<isize>) -> String {
    match d {
        None => "-".into(),
        Some(0) => "at it".into(),
        Some(d) => format!("{d:+}"),
    }
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lkp-mails");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the mail fixtures")
        .map(|e| e.expect("a fixture").path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    files.sort();
    let verbose = std::env::var("LKP_REPORTS_VERBOSE").is_ok();
    let settings = Settings::default();
    let (mut kpi_ours, mut kpi_t) = (Score::default(), Score::default());
    let (mut all_ours, mut all_t) = (Score::default(), Score::default());
    let mut samples = 0;
    for path in &files {
        let raw = std::fs::read(path).expect("a mail");
        let body = lkp_mail::decode(&raw).expect("a mail").body;
        let report = lkp_mail::parse_report(&body).expect("a report");
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        for plot in &report.plots {
            // Both sides, enough of each for either detector to see a step.
            if plot.good.len() < 3 || plot.bad.len() < 3 {
                continue;
            }
            let series: Vec<f64> = plot.good.iter().chain(&plot.bad).copied().collect();
            samples += series.len();
            let truth = plot.good.len();
            let ours = realise_score::perfline_alerts(&series, &settings);
            let theirs = realise_score::perfherder_alerts(&series);
            let (o, t) = (all_ours.add(&ours, truth), all_t.add(&theirs, truth));
            let headline = plot.metric == report.kpi;
            if headline {
                kpi_ours.add(&ours, truth);
                kpi_t.add(&theirs, truth);
            }
            if headline || verbose {
                println!(
                    "{name}: {} ({} {}; {} good, {} bad samples): Perfline {} {ours:?}, t test {} {theirs:?}",
                    plot.metric,
                    report.change,
                    report.kind.as_str(),
                    plot.good.len(),
                    plot.bad.len(),
                    at(o),
                    at(t)
                );
            }
        }
    }
    println!("lkp_reports: {samples} samples of the robot's bisections, one a commit");
    println!(
        "lkp_reports: headline KPIs: Perfline {}; t test {}",
        kpi_ours.line(),
        kpi_t.line()
    );
    println!(
        "lkp_reports: every plotted metric: Perfline {}; t test {}",
        all_ours.line(),
        all_t.line()
    );
    println!(
        "lkp_reports: caveat: the commits' order across the bisection is not in the plots; values are read within half a text row"
    );
}
