// SPDX-License-Identifier: GPL-3.0-or-later
//! mmtests' comparison arithmetic (the `mmtests-compare` crate) never panics, whatever the
//! samples: the input is read as little-endian doubles (NaN, infinities and all), summarised
//! in every style for both directions, and compared pairwise as mmtests' tables do.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mmtests_compare::arith::{cidiff, more_stats, pdiff, pndiff, summarise};
use mmtests_compare::summarise::Summarise;
use mmtests_compare::Direction;

fuzz_target!(|data: &[u8]| {
    let mut samples: Vec<f64> = data
        .chunks_exact(8)
        .take(4096)
        .map(|c| f64::from_le_bytes(c.try_into().expect("eight bytes")))
        .collect();
    samples.sort_by(f64::total_cmp);
    for direction in [Direction::Higher, Direction::Lower, Direction::Unknown] {
        let s = summarise(&samples, direction);
        for style in Summarise::ALL {
            let _ = more_stats(style, &samples, direction);
        }
        let (a, b) = (samples.first().copied(), samples.last().copied());
        let _ = (pdiff(a, b), pndiff(a, b));
        if let (Some(a), Some(b)) = (a, b) {
            let _ = cidiff(a, s.ci.map(|c| (a - c, a + c)), b, None);
        }
    }
});
