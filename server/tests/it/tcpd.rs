// SPDX-License-Identifier: GPL-3.0-or-later
//! The change-point detector of trends and alerts on TCPD's human-labelled series, scored as
//! TCPDBench scores the published methods (`tcpd_score`).

use crate::tcpd_score::{self, Series};

/// A series of length `n` with these annotators, scored on `predicted`.
fn scored(n: usize, annotations: &[&[usize]], predicted: &[usize]) -> (f64, f64) {
    Series {
        name: "example".into(),
        raw: vec![Some(0.0); n],
        annotations: annotations.iter().map(|a| a.to_vec()).collect(),
        published: Default::default(),
    }
    .score(predicted)
}

/// TCPDBench's own examples (its `metrics.py` doctests), through our port.
#[test]
fn the_scores_are_tcpdbench_s_on_its_own_examples() {
    let close = |got: f64, want: f64| assert!((got - want).abs() < 1e-12, "{got} != {want}");
    close(
        scored(45, &[&[10, 20], &[11, 20], &[10], &[0, 5]], &[10, 20]).0,
        1.0,
    );
    close(
        scored(100, &[&[], &[10], &[50]], &[10]).0,
        0.9090909090909091,
    );
    close(scored(100, &[&[], &[10], &[50]], &[]).0, 0.8);
    close(
        scored(45, &[&[10, 20], &[10], &[0, 5]], &[10, 20]).1,
        0.7962962962962963,
    );
    close(
        scored(45, &[&[], &[10], &[40]], &[10]).1,
        0.7954144620811286,
    );
    close(scored(45, &[&[], &[10], &[40]], &[]).1, 0.8189300411522634);
    // Predictions are cleaned first: 0, n − 1 and duplicates go.
    assert_eq!(
        scored(10, &[&[3, 5]], &[0, 5, 5, 3, 9]),
        scored(10, &[&[3, 5]], &[3, 5])
    );
}

/// The "zero" detector (no change point) scores on every series exactly what TCPDBench
/// published for it: the port reads the series and the annotations as TCPDBench does.
#[test]
fn no_change_point_scores_what_tcpdbench_published_for_zero() {
    let series = tcpd_score::load();
    assert_eq!(series.len(), 20);
    for s in &series {
        let (f1, cover) = s.score(&[]);
        let (pf1, pcover) = s.published["zero"];
        assert!(
            (f1 - pf1).abs() < 1e-9 && (cover - pcover).abs() < 1e-9,
            "{}: ({f1}, {cover}) != published ({pf1}, {pcover})",
            s.name
        );
    }
}

/// The trend's detector on the 20 series: mean F1 and cover above binseg's published
/// default and above zero's, and no series with more than three times the annotators'
/// change points.
#[test]
fn the_trend_detector_beats_binseg_and_zero_on_tcpd() {
    let series = tcpd_score::load();
    let scored = tcpd_score::run(&series, |values| {
        perfline_server::domain::changepoint::change_points(
            values,
            &perfline_server::domain::changepoint::Options::default(),
        )
        .into_iter()
        .map(|c| c.index)
        .collect()
    });
    let (f1, cover) = tcpd_score::means(&scored);
    let (bf1, bcover, _) = tcpd_score::published_means(&series, "binseg");
    let (zf1, zcover, _) = tcpd_score::published_means(&series, "zero");
    for s in &scored {
        println!(
            "{:20} n {:4} annotated {:2} predicted {:2} F1 {:.3} cover {:.3}",
            s.name, s.n, s.annotated, s.predicted, s.f1, s.cover
        );
    }
    println!("mean F1 {f1:.3} cover {cover:.3}; binseg {bf1:.3} / {bcover:.3}; zero {zf1:.3} / {zcover:.3}");
    assert!(
        f1 > bf1 && cover > bcover,
        "binseg's {bf1:.3} / {bcover:.3} not beaten"
    );
    assert!(
        f1 > zf1 && cover > zcover,
        "zero's {zf1:.3} / {zcover:.3} not beaten"
    );
    for s in &scored {
        assert!(
            s.predicted <= 3 * s.annotated.max(1),
            "{}: {} change points, the annotators marked {}",
            s.name,
            s.predicted,
            s.annotated
        );
    }
}
