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

/// The trend's detector on the 20 series: mean F1 and cover above every published default
/// (binseg, PELT, BOCPD) and zero's, and no series with more than 3 × the most change points
/// an annotator marked + 2.
#[test]
fn the_trend_detector_beats_the_published_defaults_on_tcpd() {
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
    for s in &scored {
        println!(
            "{:20} n {:4} annotated {:2} predicted {:2} F1 {:.3} cover {:.3}",
            s.name, s.n, s.annotated, s.predicted, s.f1, s.cover
        );
    }
    println!("mean F1 {f1:.3} cover {cover:.3}");
    for method in ["binseg", "pelt", "bocpd", "zero"] {
        let (mf1, mcover, _) = tcpd_score::published_means(&series, method);
        assert!(
            f1 > mf1 && cover > mcover,
            "{method}'s {mf1:.3} / {mcover:.3} not beaten by {f1:.3} / {cover:.3}"
        );
    }
    for (s, got) in series.iter().zip(&scored) {
        let most = s.annotations.iter().map(Vec::len).max().unwrap_or(0);
        assert!(
            got.predicted <= 3 * most + 2,
            "{}: {} change points, the annotators marked at most {most}",
            s.name,
            got.predicted
        );
    }
}

/// Series without a change point that are not flat (`tcpd_score::trends`: smooth growth
/// curves, drifts, random walks, AR(1) noise): at most two change points on every one.
#[test]
fn trends_drifts_and_walks_are_not_cut_into_levels() {
    let over: Vec<String> = tcpd_score::trends()
        .iter()
        .filter_map(|(name, x)| {
            let k = perfline_server::domain::changepoint::change_points(
                x,
                &perfline_server::domain::changepoint::Options::default(),
            )
            .len();
            (k > 2).then(|| format!("{name}: {k}"))
        })
        .collect();
    assert!(over.is_empty(), "more than two change points on {over:?}");
}
