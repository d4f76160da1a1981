// SPDX-License-Identifier: GPL-3.0-or-later
//! The fixture of Mozilla's Perfherder windows (`realise_score`) reads as SPLIT.md says, and
//! both detectors the bench compares behave as documented on it. The scores themselves are
//! the bench's (`benches/realise.rs`): the held-out split is scored there, once (`SPLIT.md`).

use crate::realise_score::{self, Tally};
use perfline_server::services::alerts::detect::{local_peaks, newest_step, Settings};

#[test]
fn the_windows_are_the_split_s_and_every_annotation_is_a_judged_revision() {
    let windows = realise_score::load();
    let count = |split: &str| windows.iter().filter(|w| w.split == split).count();
    assert_eq!(
        (
            count("seen"),
            count("dev"),
            count("seen2"),
            count("seen3"),
            count("seen4"),
            count("seen5"),
            count("held-out")
        ),
        (16, 16, 32, 32, 32, 32, 64)
    );
    for w in &windows {
        // 100 revisions before the annotated one and 60 after, fewer where the series ends.
        // (Four series end within 60 revisions of their annotated change.)
        let short = ["4408179", "4408183", "4654564", "4653995"];
        let whole = w.values.len() == 160 || short.contains(&w.signature.as_str());
        assert!(
            whole && w.values.len() > 100,
            "{}: {}",
            w.signature,
            w.values.len()
        );
        assert!(!w.truth.is_empty(), "{}: no annotated change", w.signature);
        for &t in &w.truth {
            // Judged by the sheriffs: mostly TP or FN; one (4375313) the alert's own status
            // calls FP while its summary's says TP.
            assert!(
                w.labels[t] != "TN",
                "{} at {}: {}",
                w.signature,
                w.first + t,
                w.labels[t]
            );
        }
    }
}

/// A clean step: both detectors alert at it, and a tally counts it right.
#[test]
fn both_detectors_alert_a_clean_step_at_its_revision() {
    let x: Vec<f64> = (0..80)
        .map(|i| {
            let wiggle = f64::from((i * 7 % 5) as u8) - 2.0;
            if i < 50 {
                1000.0 + wiggle
            } else {
                900.0 + wiggle
            }
        })
        .collect();
    assert_eq!(realise_score::perfherder_alerts(&x), vec![50]);
    assert_eq!(
        realise_score::perfline_alerts(&x, &Settings::default()),
        vec![50]
    );
    let mut t = Tally::default();
    t.add(&[50, 70], &[52]);
    assert_eq!((t.right, t.found, t.alerts, t.truths), (1, 1, 2, 1));
    assert!((t.precision() - 0.5).abs() < 1e-12 && (t.recall() - 1.0).abs() < 1e-12);
}

/// The alert pipeline's second test ([`local_peaks`] at the rule defaults) is the t test the
/// bench compares against, written twice: the same revisions on every development window.
#[test]
fn the_pipeline_s_local_peaks_are_perfherder_s_t_test() {
    let windows: Vec<_> = realise_score::load()
        .into_iter()
        .filter(|w| w.split != "held-out")
        .collect();
    assert_eq!(windows.len(), 160);
    let d = Settings::default();
    let mut alerts = 0;
    for w in &windows {
        let ours = local_peaks(&w.values, d.min_local_t, d.min_change_pct);
        assert_eq!(
            ours,
            realise_score::perfherder_alerts(&w.values),
            "{}",
            w.signature
        );
        alerts += ours.len();
    }
    assert!(alerts > 100, "{alerts}");
    assert!(local_peaks(&windows[0].values, 0.0, 2.0).is_empty());
}

/// Where the segmentation merged the sheriffs' change into a longer segment, the second test
/// finds it at its revision (two development windows), and the alert carries the segments'
/// evidence: a p-value under the rule's alpha, intervals around the change and its position.
#[test]
fn a_local_peak_finds_the_step_the_segmentation_merged_away() {
    let windows = realise_score::load();
    let alone = Settings {
        local_peaks: false,
        ..Settings::default()
    };
    let d = Settings::default();
    for signature in ["4366821", "3869605"] {
        let w = windows
            .iter()
            .find(|w| w.signature == signature)
            .expect("a development window");
        assert_ne!(w.split, "held-out");
        assert_eq!(w.truth, vec![100], "{signature}");
        assert_eq!(
            realise_score::perfline_alerts(&w.values, &alone),
            Vec::<usize>::new(),
            "{signature}"
        );
        assert_eq!(
            realise_score::perfline_alerts(&w.values, &d),
            vec![100],
            "{signature}"
        );
        let step = (1..=w.values.len())
            .find_map(|n| newest_step(&w.values[..n], &d, None).filter(|s| s.index == 100))
            .expect("the step, once it has lasted");
        assert!(step.p_value <= d.alpha, "{signature}: {step:?}");
        assert!(step.index_ci.0 <= 100 && 100 <= step.index_ci.1, "{step:?}");
        let (lo, hi) = step.change_pct_ci;
        assert!(lo <= step.change_pct && step.change_pct <= hi, "{step:?}");
        assert!(step.change_pct.abs() >= d.min_change_pct, "{step:?}");
    }
}
