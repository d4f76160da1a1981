// SPDX-License-Identifier: GPL-3.0-or-later
//! How noisy a series is and how many runs a comparison needs: the wire types of the noise
//! model and the run-count advice, and the one sentence every view prints. The server
//! estimates and computes them (`perfline_server::noise`); pages, text and JSON only show them.

use serde::{Deserialize, Serialize};

/// Which spread an estimate or a piece of advice rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Basis {
    /// Between runs of the same kernel or commit (reboots, rebuilt trees): the spread of
    /// run means.
    Between,
    /// Within one run: the spread of its iterations.
    Within,
}

impl Basis {
    /// How the sentence names the spread.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Between => "between-boot",
            Basis::Within => "within-run",
        }
    }
}

/// A series' noise: the spread within a run and between runs, each a coefficient of
/// variation (a fraction: 0.008 is 0.8 %) with its sample size; `None` where unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Noise {
    /// The pooled CV of a run's iterations.
    pub within_cv: Option<f64>,
    /// The CV of run means of the same kernel or commit.
    pub between_cv: Option<f64>,
    /// Samples behind `within_cv` (of runs with two or more).
    pub n_within: Option<usize>,
    /// Runs behind `between_cv`.
    pub n_between: Option<usize>,
    /// Which of the two spreads a run's mean suffers more from.
    pub dominant: Option<Basis>,
    /// Samples per run, on average.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_per_run: Option<f64>,
}

/// What the current runs can tell, and what it would take to tell a chosen change: for a
/// two-sided two-sample t test at 95 % confidence and 80 % power.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Advice {
    /// The smallest relative change the current runs detect (a fraction), `None` when there
    /// are too few to test.
    pub min_detectable: Option<f64>,
    /// Runs per kernel needed to detect `detect`; `None` beyond [`MAX_RUNS`].
    pub runs_needed: Option<usize>,
    /// The change asked about (a fraction; `detect=2` is 0.02).
    pub detect: f64,
    pub basis: Basis,
    /// The spread the advice used (a CV).
    pub cv: f64,
    /// The runs per kernel there are (the fewest of the compared kernels).
    pub runs: usize,
    /// The samples per kernel there are (the fewest).
    pub samples: usize,
}

/// The most runs per kernel advice names; beyond, it says "more than".
pub const MAX_RUNS: usize = 1000;

/// The change advice is about when nothing else is asked (`detect=2`).
pub const DEFAULT_DETECT: f64 = 0.02;

fn pct(f: f64) -> String {
    let p = f * 100.0;
    if p >= 10.0 {
        format!("{p:.0} %")
    } else if p >= 1.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.2} %")
    }
}

impl Advice {
    /// Whether the runs there are fall short of telling `detect`.
    pub fn needs_more_runs(&self) -> bool {
        self.runs_needed.is_none_or(|n| n > self.runs)
    }

    /// The short form beside a row: `needs ≥ 6 runs`.
    pub fn short(&self) -> String {
        match self.runs_needed {
            Some(n) if n > self.runs => format!("needs ≥ {n} runs"),
            Some(_) => "enough runs".to_owned(),
            None => format!("needs > {MAX_RUNS} runs"),
        }
    }

    /// The sentence: `needs ≥ 6 runs per kernel to tell a 2 % change (has 3; between-boot CV
    /// 1.4 %)`, or what the runs can tell when they are enough.
    pub fn sentence(&self) -> String {
        let why = format!(
            "(has {}; {} CV {})",
            self.runs,
            self.basis.name(),
            pct(self.cv)
        );
        let what = match self.runs_needed {
            Some(n) if n > self.runs => format!("needs ≥ {n} runs per kernel"),
            Some(_) => "enough runs".to_owned(),
            None => format!("needs more than {MAX_RUNS} runs per kernel"),
        };
        let smallest = match self.min_detectable {
            Some(m) => format!("; the smallest change these runs detect is {}", pct(m)),
            None => String::new(),
        };
        format!(
            "{what} to tell a {} change {why}{smallest}",
            pct(self.detect)
        )
    }
}

impl Noise {
    /// The CV of one commit's (or kernel's) mean: the between-run spread when known, else
    /// the within-run spread over √(samples per run).
    pub fn point_cv(&self) -> Option<f64> {
        self.between_cv.or_else(|| {
            self.within_cv
                .map(|w| w / self.samples_per_run.unwrap_or(1.0).max(1.0).sqrt())
        })
    }

    /// `within-run CV 0.8 % (n 30), between-boot CV 1.4 % (n 6): between-boot dominates`.
    pub fn sentence(&self) -> String {
        let part = |basis: Basis, cv: Option<f64>, n: Option<usize>| match cv {
            Some(cv) => format!("{} CV {} (n {})", basis.name(), pct(cv), n.unwrap_or(0)),
            None => format!("{} CV unknown", basis.name()),
        };
        let mut s = format!(
            "{}, {}",
            part(Basis::Within, self.within_cv, self.n_within),
            part(Basis::Between, self.between_cv, self.n_between)
        );
        if let Some(d) = self.dominant {
            s.push_str(&format!(": {} dominates", d.name()));
        }
        s
    }
}

/// One series with A/A data (`GET /api/v1/calibration`): its noise, and how often a test
/// finds a difference where there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CalibrationSeries {
    /// The A/A upload's name (`calibration=NAME`).
    pub calibration: String,
    pub benchmark: String,
    pub machine: String,
    pub kernel: String,
    pub metric: String,
    pub param: String,
    /// A/A runs of this series.
    pub runs: usize,
    pub within_cv: Option<f64>,
    pub between_cv: Option<f64>,
    pub n_within: Option<usize>,
    pub n_between: Option<usize>,
    pub dominant: Option<Basis>,
    /// How often mmtests' significance (`*`) marks one A/A run against another (each a
    /// pretend kernel); nominally 0.05.
    pub fpr_significance: Option<f64>,
    /// Pairs of runs `fpr_significance` tested.
    pub pairs: usize,
    /// How often the series' alert rule fires on pretend histories drawn from the A/A run
    /// means; nominally its `alpha`.
    pub fpr_alert: Option<f64>,
    /// The alert rule's `alpha`.
    pub alert_alpha: f64,
    /// Pretend histories `fpr_alert` tried.
    pub histories: usize,
    /// Where a rate is over its nominal one (beyond chance), or the data cannot say.
    pub warning: Option<String>,
    /// The noise in a sentence.
    pub summary: String,
}

/// `GET /api/v1/calibration`: the series with A/A data, noisiest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Calibration {
    pub series: Vec<CalibrationSeries>,
    /// Series left out beyond `limit`.
    pub left_out: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn advice(runs_needed: Option<usize>, runs: usize) -> Advice {
        Advice {
            min_detectable: Some(0.031),
            runs_needed,
            detect: 0.02,
            basis: Basis::Between,
            cv: 0.014,
            runs,
            samples: runs,
        }
    }

    #[test]
    fn the_sentence_names_the_number() {
        let a = advice(Some(6), 3);
        assert!(a.needs_more_runs());
        assert_eq!(
            a.sentence(),
            "needs ≥ 6 runs per kernel to tell a 2.0 % change (has 3; between-boot CV 1.4 %); \
             the smallest change these runs detect is 3.1 %"
        );
        let enough = advice(Some(6), 8);
        assert!(!enough.needs_more_runs());
        assert!(enough
            .sentence()
            .starts_with("enough runs to tell a 2.0 % change"));
        let never = advice(None, 3);
        assert!(never.needs_more_runs());
        assert!(never
            .sentence()
            .starts_with("needs more than 1000 runs per kernel"));
    }

    #[test]
    fn the_noise_sentence_says_what_dominates() {
        let n = Noise {
            within_cv: Some(0.004),
            between_cv: Some(0.0079),
            n_within: Some(30),
            n_between: Some(3),
            dominant: Some(Basis::Between),
            samples_per_run: Some(10.0),
        };
        assert_eq!(
            n.sentence(),
            "within-run CV 0.40 % (n 30), between-boot CV 0.79 % (n 3): between-boot dominates"
        );
        assert_eq!(
            Noise::default().sentence(),
            "within-run CV unknown, between-boot CV unknown"
        );
    }
}
