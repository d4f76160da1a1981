// SPDX-License-Identifier: GPL-3.0-or-later
//! The alert pipeline on Mozilla's Perfherder series with their sheriffs' verdicts
//! (`tests/it/realise_score.rs`): every window uploaded one revision at a time, the rule
//! defaults, no reruns; beside a t test like Perfherder's on the same windows, and the alerts
//! Perfherder itself raised there (the rows its sheriffs judged). Precision and recall on the
//! dev split and on the held-out split (`tests/fixtures/realise/SPLIT.md`).
//!
//! `cargo bench -p perfline-server --bench realise` (`REALISE_SPLIT=dev` for one split only;
//! `REALISE_VERBOSE=1` for every window).

#[path = "../tests/it/realise_score.rs"]
mod realise_score;

use perfline_server::services::alerts::detect::Settings;

fn main() {
    let windows = realise_score::load();
    if std::env::var("REALISE_TUNE").is_ok() {
        // The development splits only (`REALISE_NO_HELD_OUT=1` leaves the held-out windows
        // unread): what the rule's `min_local_t` does there, split by split and pooled.
        let grid: Vec<f64> = std::env::var("REALISE_GRID").map_or_else(
            |_| vec![0.0, 5.0, 6.0, 6.5, 7.0, 7.5, 8.0, 9.0],
            |g| {
                g.split(',')
                    .map(|v| v.parse().expect("REALISE_GRID: numbers"))
                    .collect()
            },
        );
        for min_local_t in grid {
            let settings = Settings {
                min_local_t,
                ..Settings::default()
            };
            let mut line = format!("min_local_t {min_local_t:4.1}:");
            let (mut ours_all, mut theirs_all) = (
                realise_score::Tally::default(),
                realise_score::Tally::default(),
            );
            for split in realise_score::SPLITS.iter().filter(|s| **s != "held-out") {
                let (ours, theirs) = realise_score::score(&windows, split, &settings);
                ours_all.merge(ours);
                theirs_all.merge(theirs);
                line += &format!(" {split} {} (t test {}) |", ours.brief(), theirs.brief());
            }
            println!(
                "{line} pooled {} (t test {})",
                ours_all.brief(),
                theirs_all.brief()
            );
        }
        return;
    }
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    let d = Settings::default();
    // The rule's defaults unless told (for the development split).
    let settings = Settings {
        min_before: env("REALISE_MIN_BEFORE").map_or(d.min_before, |v| v as usize),
        min_after: env("REALISE_MIN_AFTER").map_or(d.min_after, |v| v as usize),
        alpha: env("REALISE_ALPHA").unwrap_or(d.alpha),
        min_change_pct: env("REALISE_MIN_PCT").unwrap_or(d.min_change_pct),
        min_local_t: env("REALISE_MIN_LOCAL_T").unwrap_or(d.min_local_t),
        ..d
    };
    let only = std::env::var("REALISE_SPLIT").ok();
    let verbose = std::env::var("REALISE_VERBOSE").is_ok();
    for split in realise_score::SPLITS {
        if only.as_deref().is_some_and(|o| o != split) {
            continue;
        }
        if verbose {
            for w in windows.iter().filter(|w| w.split == split) {
                println!(
                    "  {} truth {:?} judged {:?} perfline {:?} perfherder {:?}",
                    w.signature,
                    w.truth,
                    realise_score::judged(w),
                    realise_score::perfline_alerts(&w.values, &settings),
                    realise_score::perfherder_alerts(&w.values)
                );
            }
        }
        let (ours, theirs) = realise_score::score(&windows, split, &settings);
        let count = windows.iter().filter(|w| w.split == split).count();
        let mut own = realise_score::Tally::default();
        for w in windows.iter().filter(|w| w.split == split) {
            own.add(&realise_score::perfherder_own(w), &w.truth);
        }
        for (who, t) in [
            ("Perfline", ours),
            ("Perfherder t test", theirs),
            ("Perfherder's own alerts (the judged rows)", own),
        ] {
            println!(
                "realise {split} ({count} windows): {who}: precision {:.3} ({} of {} alerts right), recall {:.3} ({} of {} annotated changes)",
                t.precision(),
                t.right,
                t.alerts,
                t.recall(),
                t.found,
                t.truths
            );
        }
    }
}
