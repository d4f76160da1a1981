// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see ../PROVENANCE.md.
//! How mmtests summarises a benchmark's operations: the five summary styles, the statistics
//! each prints (Summarise.pm), and how mmtests compares a family. Below the
//! arithmetic (`arith`) and Perfline's tables, which compute and print them.

use crate::Direction;

/// How mmtests summarises a benchmark's operations (`summarise:` in its `shellpack.yaml`,
/// Summarise.pm): the statistics printed per operation.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub enum Summarise {
    /// Min, mean, stddev, coefficient of variation, max, B-mean (the default).
    #[default]
    Multiops,
    /// One value per operation: the best sample.
    Singleops,
    /// Min, mean, B-mean and 95th percentile, stddev, CoV, max.
    Normalisedops,
    /// Normalisedops with the 50th, 75th, 90th and 99th percentiles and B-means.
    NormalisedLeftSkewops,
    /// Multiops' rows and a bootstrap sub-selection mean with its interval.
    Subselection,
}

impl Summarise {
    pub const ALL: [Summarise; 5] = [
        Summarise::Multiops,
        Summarise::Singleops,
        Summarise::Normalisedops,
        Summarise::NormalisedLeftSkewops,
        Summarise::Subselection,
    ];

    /// The name as `shellpack.yaml` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Summarise::Multiops => "Multiops",
            Summarise::Singleops => "Singleops",
            Summarise::Normalisedops => "Normalisedops",
            Summarise::NormalisedLeftSkewops => "NormalisedLeftSkewops",
            Summarise::Subselection => "Subselection",
        }
    }

    /// The style named `s` (as `shellpack.yaml` writes it, any case).
    pub fn parse(s: &str) -> Option<Summarise> {
        Summarise::ALL
            .into_iter()
            .find(|x| x.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// The statistics printed per operation, in mmtests' order (`_SummaryStats`).
    pub fn rows(self) -> &'static [SumStat] {
        use SumStat::*;
        match self {
            Summarise::Multiops => &[Min, Mean, Stddev, CoeffVar, Max, BMean(95)],
            Summarise::Singleops => &[Value],
            Summarise::Normalisedops => &[Min, Mean, BMean(95), Pctile(95), Stddev, CoeffVar, Max],
            Summarise::NormalisedLeftSkewops => &[
                Min,
                Mean,
                BMean(50),
                Pctile(50),
                BMean(75),
                Pctile(75),
                BMean(90),
                Pctile(90),
                BMean(99),
                Pctile(99),
                Stddev,
                CoeffVar,
                Max,
            ],
            Summarise::Subselection => &[
                Min,
                Mean,
                BMean(95),
                Stddev,
                CoeffVar,
                Max,
                SubMean,
                SubMeanCi,
            ],
        }
    }

    /// The row whose cells carry the significance mark (`*`), if any.
    pub fn marked(self) -> Option<SumStat> {
        match self {
            Summarise::Singleops => None,
            Summarise::Subselection => Some(SumStat::SubMean),
            _ => Some(SumStat::Mean),
        }
    }
}

/// One row statistic of a summary style, as mmtests names it in `_SummaryStats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SumStat {
    Min,
    /// Hmean for higher-is-better, Amean for lower.
    Mean,
    /// The mean of the best N % of the samples (at least one).
    BMean(u32),
    /// The N-th percentile: the sample at rank max(1, ⌊n·N/100⌋) counted from the best.
    Pctile(u32),
    Stddev,
    CoeffVar,
    Max,
    /// Singleops' one value: the best sample.
    Value,
    /// Subselection's bootstrap mean and its interval.
    SubMean,
    SubMeanCi,
}

impl SumStat {
    /// The row name mmtests prints (Stat.pm's `stat_names`).
    pub fn name(self, direction: Direction) -> String {
        let h = direction == Direction::Higher;
        match self {
            SumStat::Min => "Min".into(),
            SumStat::Max => "Max".into(),
            SumStat::Mean => if h { "Hmean" } else { "Amean" }.into(),
            SumStat::BMean(n) => format!("{}.{n}", if h { "BHmean" } else { "BAmean" }),
            SumStat::Pctile(n) => format!("Pctile.{n}"),
            SumStat::Stddev => if h { "HStddev" } else { "Stddev" }.into(),
            SumStat::CoeffVar => if h { "HCoeffVar" } else { "CoeffVar" }.into(),
            SumStat::Value => "Ops".into(),
            SumStat::SubMean => if h { "SubHmean" } else { "SubAmean" }.into(),
            SumStat::SubMeanCi => if h { "SubHmeanCI" } else { "SubAmeanCI" }.into(),
        }
    }

    /// Whether its percentage is `pndiff` (a smaller value is better): the spreads always,
    /// everything else when lower is better.
    pub fn smaller_is_better(self, direction: Direction) -> bool {
        matches!(
            self,
            SumStat::Stddev | SumStat::CoeffVar | SumStat::SubMeanCi
        ) || direction == Direction::Lower
    }
}

/// How mmtests compares a benchmark: its summary style, the one direction its tables use,
/// and the operations `--print-ratio` lists (all when empty).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct Family {
    pub summarise: Summarise,
    pub preferred: Direction,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ratio: Vec<String>,
}
