// SPDX-License-Identifier: GPL-3.0-or-later
//! Statistics and pictures of stored runs, beside the store: [`stats`] computes a comparison
//! (every statistic of each metric, parameter and kernel in one polars pass, folded into an
//! `app::compare::Comparison`), [`chart`] draws the comparison chart and the trend SVGs.
//! Callers run both off the async workers.

pub mod chart;
pub mod flame;
pub mod stats;
