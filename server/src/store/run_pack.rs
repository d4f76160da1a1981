// SPDX-License-Identifier: GPL-3.0-or-later
//! The packed form of a run's samples in `run_data.packed`: every series of the run, in the
//! order the file gave them, one after another:
//!
//! ```text
//! version (1 byte, 1)
//! per series: key id (varint, a `metric_key` row), n (varint), iterations, n values (f64 LE)
//! iterations: a flags byte, bit 0 clear: the first (zigzag varint) follows and they count up
//!             by one from it; set: n zigzag varint steps from the previous (from 0) follow;
//!             bit 1 set: the file wrote every value as an integer
//! ```
//!
//! One job of 5,000 one-sample LKP keys is ~65 KB: ~13 bytes a sample, against ~150 for a row
//! per series with its names.

use super::{StoreError, StoreResult};

const VERSION: u8 = 1;

/// One series of a packed run: its `metric_key` id and its samples in iteration order.
#[derive(Debug, Clone, PartialEq)]
pub struct PackedSeries {
    pub key: i64,
    /// The file wrote every value as an integer (see `ParsedSeries::integer`).
    pub integer: bool,
    pub iterations: Vec<i64>,
    pub values: Vec<f64>,
}

pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Packs `series` (`(key id, samples in iteration order, written as integers)`), in the
/// order given.
pub fn pack<'a>(series: impl IntoIterator<Item = (i64, &'a [(i64, f64)], bool)>) -> Vec<u8> {
    let mut out = vec![VERSION];
    for (key, samples, integer) in series {
        let integer = if integer { 2 } else { 0 };
        put_varint(&mut out, key as u64);
        put_varint(&mut out, samples.len() as u64);
        let first = samples.first().map_or(0, |s| s.0);
        let counting = samples
            .iter()
            .enumerate()
            .all(|(i, s)| Some(s.0) == first.checked_add(i as i64));
        if counting {
            out.push(integer);
            put_varint(&mut out, zigzag(first));
        } else {
            out.push(1 | integer);
            let mut previous = 0i64;
            for &(iteration, _) in samples {
                put_varint(&mut out, zigzag(iteration.wrapping_sub(previous)));
                previous = iteration;
            }
        }
        for &(_, value) in samples {
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
    out
}

/// A cursor that fails, instead of panicking, on a torn blob.
pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
}

impl Reader<'_> {
    pub(super) fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(b)
    }

    pub(super) fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    pub(super) fn i64(&mut self) -> Option<i64> {
        let (head, rest) = self.bytes.split_first_chunk::<8>()?;
        self.bytes = rest;
        Some(i64::from_le_bytes(*head))
    }

    pub(super) fn f64(&mut self) -> Option<f64> {
        let (head, rest) = self.bytes.split_first_chunk::<8>()?;
        self.bytes = rest;
        Some(f64::from_le_bytes(*head))
    }
}

/// Every series of a packed run, in stored order.
pub fn unpack(bytes: &[u8]) -> StoreResult<Vec<PackedSeries>> {
    decode(bytes).ok_or_else(|| {
        StoreError::Corrupt(format!("a packed run of {} bytes is torn", bytes.len()))
    })
}

fn decode(bytes: &[u8]) -> Option<Vec<PackedSeries>> {
    let mut r = Reader { bytes };
    if r.byte()? != VERSION {
        return None;
    }
    let mut out = Vec::new();
    while !r.bytes.is_empty() {
        let key = i64::try_from(r.varint()?).ok()?;
        let n = usize::try_from(r.varint()?).ok()?;
        // Each sample takes at least its 8 value bytes: a count beyond that is a torn blob,
        // not an allocation to make.
        if n > r.bytes.len() / 8 {
            return None;
        }
        let mut iterations = Vec::with_capacity(n);
        let flags = r.byte()?;
        if flags > 3 {
            return None;
        }
        match flags & 1 {
            0 => {
                let first = unzigzag(r.varint()?);
                iterations.extend((0..n as i64).map(|i| first.wrapping_add(i)));
            }
            _ => {
                let mut previous = 0i64;
                for _ in 0..n {
                    previous = previous.wrapping_add(unzigzag(r.varint()?));
                    iterations.push(previous);
                }
            }
        }
        let values = (0..n).map(|_| r.f64()).collect::<Option<Vec<f64>>>()?;
        out.push(PackedSeries {
            key,
            integer: flags & 2 != 0,
            iterations,
            values,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trips(series in proptest::collection::vec(
            (0i64..1 << 40, proptest::collection::vec((any::<i64>(), any::<f64>()), 0..12), any::<bool>()),
            0..20,
        )) {
            // Half of them count up from a first iteration, as most files' do.
            let series: Vec<(i64, Vec<(i64, f64)>)> = series
                .into_iter()
                .map(|(key, mut samples, counting)| {
                    samples.sort_by_key(|s| s.0);
                    if counting {
                        let first = samples.first().map_or(0, |s| s.0 / 2);
                        for (i, s) in samples.iter_mut().enumerate() {
                            s.0 = first + i as i64;
                        }
                    }
                    (key, samples)
                })
                .collect();
            let bytes = pack(series.iter().map(|(k, s)| (*k, s.as_slice(), *k % 2 == 0)));
            let back = unpack(&bytes).unwrap();
            prop_assert_eq!(back.len(), series.len());
            for (b, (key, samples)) in back.iter().zip(&series) {
                prop_assert_eq!(b.key, *key);
                prop_assert_eq!(b.integer, *key % 2 == 0);
                prop_assert_eq!(&b.iterations, &samples.iter().map(|s| s.0).collect::<Vec<_>>());
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                prop_assert_eq!(bits(&b.values), bits(&samples.iter().map(|s| s.1).collect::<Vec<_>>()));
            }
            // A torn blob is an error, never a panic.
            if bytes.len() > 1 {
                prop_assert!(unpack(&bytes[..bytes.len() - 1]).is_err());
            }
        }
    }

    #[test]
    fn one_sample_series_are_small() {
        let samples = [(0i64, 3472.5f64)];
        let bytes = pack((0..5000).map(|k| (k, &samples[..], false)));
        assert!(bytes.len() < 5000 * 13, "{}", bytes.len());
    }

    #[test]
    fn hostile_counts_are_errors() {
        let mut bytes = vec![VERSION];
        put_varint(&mut bytes, 1);
        put_varint(&mut bytes, u64::MAX >> 1);
        assert!(unpack(&bytes).is_err());
        assert!(unpack(&[2]).is_err());
        // Unknown flags.
        assert!(unpack(&[VERSION, 1, 1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
    }
}
