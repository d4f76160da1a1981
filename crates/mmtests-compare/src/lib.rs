// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see ../PROVENANCE.md.
//! mmtests' comparison arithmetic, ported: how `compare-mmtests.pl` summarises an operation's
//! samples and computes the percentages of its tables (`Compare.pm`, `Stat.pm`,
//! `Summarise.pm`), as pure Rust that knows nothing of Perfline.
//!
//! - [`summarise`]: the five summary styles and the statistics each prints.
//! - [`arith`]: means, deviations, intervals, B-means and percentiles summed and rounded as
//!   Perl and R do; `pdiff`, `pndiff`, `cidiff`; the cells of a table.
//!
//! The tables themselves, over Perfline's `Comparison`, are `app::mmtests`; what they print is
//! checked byte for byte against mmtests' own output in Perfline's `it::mmtests_oracle` and
//! `it::mmtests_coverage`.

pub mod arith;
pub mod summarise;

/// Whether a bigger value of a metric is better (throughput) or worse (latency, time), or not
/// known (most of an LKP job's keys: a counter of `proc-vmstat` is neither): a change of such a
/// metric is a change, never "better" or "worse", and raises no alert of its own.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub enum Direction {
    #[default]
    Higher,
    Lower,
    Unknown,
}

impl Direction {
    pub fn parse(raw: &str) -> Option<Self> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "higher" | "higher_is_better" | "up" => Some(Direction::Higher),
            "lower" | "lower_is_better" | "down" => Some(Direction::Lower),
            "unknown" | "none" => Some(Direction::Unknown),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Higher => "higher",
            Direction::Lower => "lower",
            Direction::Unknown => "unknown",
        }
    }

    /// Whether it is known which way is better.
    pub fn is_known(self) -> bool {
        self != Direction::Unknown
    }
}
