// SPDX-License-Identifier: GPL-3.0-or-later
//! The packed form of a series' samples in the legacy `series.packed` (read when an older
//! database is converted to `run_data`): `(iteration i64, value f64)` pairs,
//! little-endian, in iteration order.

const PAIR: usize = 16;

#[cfg(test)]
pub fn pack(samples: &[(i64, f64)]) -> Vec<u8> {
    let mut sorted = samples.to_vec();
    sorted.sort_by_key(|&(iteration, _)| iteration);
    let mut out = Vec::with_capacity(sorted.len() * PAIR);
    for (iteration, value) in sorted {
        out.extend_from_slice(&iteration.to_le_bytes());
        out.extend_from_slice(&value.to_le_bytes());
    }
    out
}

pub fn unpack(bytes: &[u8]) -> super::StoreResult<(Vec<i64>, Vec<f64>)> {
    if !bytes.len().is_multiple_of(PAIR) {
        return Err(super::StoreError::Corrupt(format!(
            "a packed series of {} bytes is not whole pairs",
            bytes.len()
        )));
    }
    let n = bytes.len() / PAIR;
    let (mut iterations, mut values) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for pair in bytes.chunks_exact(PAIR) {
        let (i, v) = pair.split_at(8);
        iterations.push(i64::from_le_bytes(i.try_into().expect("8 bytes")));
        values.push(f64::from_le_bytes(v.try_into().expect("8 bytes")));
    }
    Ok((iterations, values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trips_in_iteration_order(samples in proptest::collection::vec((any::<i64>(), any::<f64>()), 0..50)) {
            let (iterations, values) = unpack(&pack(&samples)).unwrap();
            let mut sorted = samples.clone();
            sorted.sort_by_key(|s| s.0);
            prop_assert_eq!(iterations, sorted.iter().map(|s| s.0).collect::<Vec<_>>());
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&values), bits(&sorted.iter().map(|s| s.1).collect::<Vec<_>>()));
        }
    }

    #[test]
    fn torn_blobs_are_errors() {
        assert!(unpack(&[0u8; 17]).is_err());
    }
}
