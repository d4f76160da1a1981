// SPDX-License-Identifier: GPL-3.0-or-later
//! The value axis every chart shares (the SVG charts of `chart`, the ASCII chart of
//! `trend`): values clamped to what a renderer can draw, and a padded, always finite range.

use std::cmp::Ordering;

/// The largest magnitude a chart draws at its place; anything beyond is drawn at the bound.
/// Ingest keeps values within ±1e15, but charts must not depend on it: with bounds this far
/// from `f64::MAX` no span, pad or tick computed from them can overflow.
pub const PLOT_LIMIT: f64 = 1e300;

/// A value as a chart draws it: within ±[`PLOT_LIMIT`] (NaN drawn as 0).
pub fn plot_value(v: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(-PLOT_LIMIT, PLOT_LIMIT)
    }
}

/// An axis for data from `lo` to `hi` (either may be infinite, NaN, or the folds' starting
/// infinities when there is no data), padded by `pad` of the span on each side. Always finite
/// with `lo < hi` and a span no smaller than a billionth of the magnitude, so that every
/// renderer's tick arithmetic terminates: all-equal, subnormal and huge data included.
pub fn axis_range(lo: f64, hi: f64, pad: f64) -> (f64, f64) {
    // Also NaN, and the folds' (inf, -inf) when there is no data.
    if lo.partial_cmp(&hi).is_none_or(|o| o == Ordering::Greater) {
        return (0.0, 1.0);
    }
    let (lo, hi) = (plot_value(lo), plot_value(hi));
    let scale = lo.abs().max(hi.abs());
    let span = hi - lo;
    if span <= scale * 1e-9 || span < 1e-200 {
        let pad = if scale * 0.1 > 1e-200 {
            scale * 0.1
        } else {
            1.0
        };
        return (lo - pad, hi + pad);
    }
    let pad = span * pad.clamp(0.0, 1.0);
    (lo - pad, hi + pad)
}
