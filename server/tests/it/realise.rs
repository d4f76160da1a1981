// SPDX-License-Identifier: GPL-3.0-or-later
//! The fixture of Mozilla's Perfherder windows (`realise_score`) reads as SPLIT.md says, and
//! both detectors the bench compares behave as documented on it. The scores themselves are
//! the bench's (`benches/realise.rs`): the held-out split is scored there, once (`SPLIT.md`).

use crate::realise_score::{self, Tally};
use perfline_server::services::alerts::detect::Settings;

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
            count("held-out")
        ),
        (16, 16, 32, 32, 32, 32)
    );
    for w in &windows {
        // 100 revisions before the annotated one and 60 after, fewer where the series ends.
        // (Two series end within 60 revisions of their annotated change.)
        let whole = w.values.len() == 160 || ["4408179", "4408183"].contains(&w.signature.as_str());
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
