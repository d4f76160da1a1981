// SPDX-License-Identifier: GPL-3.0-or-later
//! The alert pipeline on Mozilla's Perfherder series with their sheriffs' verdicts
//! (`tests/it/realise_score.rs`): every window uploaded one revision at a time, the rule
//! defaults, no reruns; beside a t test like Perfherder's on the same windows, and the alerts
//! Perfherder itself raised there (the rows its sheriffs judged). Precision and recall on the
//! dev split and on the held-out split (`tests/fixtures/realise/SPLIT.md`).
//!
//! `cargo bench -p perfline-server --bench realise` (`REALISE_SPLIT=dev` for one split only;
//! `REALISE_VERBOSE=1` for every window; `REALISE_CV=1` for the choice of the detector by
//! leave-one-split-out cross-validation on the development splits, the held-out split never
//! scored, and with `REALISE_NO_HELD_OUT=1` not even read).

#[path = "../tests/it/realise_score.rs"]
mod realise_score;

use perfline_server::services::alerts::detect::Settings;

/// The detectors the cross-validation chooses between: the segmentation alone, or with the
/// local t's peaks beside it (`Settings::local_peaks`).
const VARIANTS: [(&str, bool); 2] = [
    ("segmentation", false),
    ("segmentation or local peak", true),
];

/// How a choice is judged on the splits it may see: the smaller of its two margins over the
/// issue's goals, precision - the t test's and recall - 0.9 x the t test's (pooled).
fn margin(ours: realise_score::Tally, theirs: realise_score::Tally) -> f64 {
    (ours.precision() - theirs.precision()).min(ours.recall() - 0.9 * theirs.recall())
}

/// Leave one development split out: choose the variant by [`margin`] on the others, score it
/// on the one left out; then pool the left-out scores, and choose on all of them.
fn cross_validate(windows: &[realise_score::Window]) {
    let dev: Vec<&str> = realise_score::SPLITS
        .iter()
        .copied()
        .filter(|s| *s != "held-out")
        .collect();
    // (variant, split) -> (ours, the t test's)
    let tallies: Vec<Vec<(realise_score::Tally, realise_score::Tally)>> = VARIANTS
        .iter()
        .map(|&(_, local_peaks)| {
            let settings = Settings {
                local_peaks,
                ..Settings::default()
            };
            dev.iter()
                .map(|split| realise_score::score(windows, split, &settings))
                .collect()
        })
        .collect();
    let pooled = |v: usize, keep: &dyn Fn(usize) -> bool| {
        let (mut ours, mut theirs) = (
            realise_score::Tally::default(),
            realise_score::Tally::default(),
        );
        let kept = tallies[v].iter().enumerate().filter(|(k, _)| keep(*k));
        for (o, t) in kept.map(|(_, tally)| tally) {
            ours.merge(*o);
            theirs.merge(*t);
        }
        (ours, theirs)
    };
    let choose = |keep: &dyn Fn(usize) -> bool| {
        (0..VARIANTS.len())
            .map(|v| {
                let (o, t) = pooled(v, keep);
                (v, margin(o, t))
            })
            // The largest margin; on a tie the first, simpler variant.
            .min_by(|a, b| b.1.total_cmp(&a.1))
            .expect("variants")
    };
    let (mut left_out, mut theirs_left_out) = (
        realise_score::Tally::default(),
        realise_score::Tally::default(),
    );
    for (k, split) in dev.iter().enumerate() {
        let (v, m) = choose(&|j| j != k);
        let (ours, theirs) = tallies[v][k];
        left_out.merge(ours);
        theirs_left_out.merge(theirs);
        println!(
            "realise cv: without {split}: chose {:?} (margin {m:+.3}); on {split}: {} (t test {})",
            VARIANTS[v].0,
            ours.brief(),
            theirs.brief()
        );
    }
    println!(
        "realise cv: the left-out splits pooled: {} (t test {}): margin {:+.3}",
        left_out.brief(),
        theirs_left_out.brief(),
        margin(left_out, theirs_left_out)
    );
    for (v, (name, _)) in VARIANTS.iter().enumerate() {
        let (o, t) = pooled(v, &|_| true);
        println!(
            "realise cv: all development splits, {name:?}: {} (t test {}): margin {:+.3}",
            o.brief(),
            t.brief(),
            margin(o, t)
        );
    }
    let (v, m) = choose(&|_| true);
    println!(
        "realise cv: chosen on all development splits: {:?} (margin {m:+.3}); the default: {:?}",
        VARIANTS[v].0,
        VARIANTS
            .iter()
            .find(|(_, p)| *p == Settings::default().local_peaks)
            .map(|(n, _)| n)
    );
}

fn main() {
    let windows = realise_score::load();
    if std::env::var("REALISE_CV").is_ok() {
        cross_validate(&windows);
        return;
    }
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
