// SPDX-License-Identifier: GPL-3.0-or-later
//! Kernel-version-aware ordering: `4.16.0-rc1 < 4.16.0-rc2 < 4.16.0 < 4.16.1 < 4.17.0-rc1`.
//!
//! A kernel label is read as a dotted numeric version, an optional `-rcN`, and any suffix
//! (`-vanilla`, `-tip+`). Labels that do not start with a number sort after all versions, by text.

use std::cmp::Ordering;

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct KernelKey<'a> {
    /// `false` for labels that are not versions, so that versions come first.
    not_version: bool,
    numbers: Vec<u64>,
    /// `(0, n)` for `-rcN`, `(1, 0)` for a release: every rc precedes its release.
    stage: (u8, u64),
    suffix: &'a str,
}

#[expect(
    clippy::string_slice,
    reason = "cut where `find` found an ASCII character"
)]
fn key(label: &str) -> KernelKey<'_> {
    let label = label
        .strip_prefix('v')
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or(label);
    let version_len = label
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(label.len());
    let (version, rest) = label.split_at(version_len);
    let numbers: Vec<u64> = version
        .split('.')
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap_or(u64::MAX))
        .collect();
    if numbers.is_empty() {
        return KernelKey {
            not_version: true,
            numbers,
            stage: (1, 0),
            suffix: label,
        };
    }
    let mut stage = (1, 0);
    let mut suffix = rest;
    if let Some(after) = rest.strip_prefix("-rc") {
        let digits = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        if digits > 0 {
            stage = (0, after[..digits].parse().unwrap_or(u64::MAX));
            suffix = &after[digits..];
        }
    }
    KernelKey {
        not_version: false,
        numbers,
        stage,
        suffix,
    }
}

/// Compares two kernel labels in version order; ties are broken by the full text.
pub fn compare_kernels(a: &str, b: &str) -> Ordering {
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

/// Sorts kernel labels in version order.
pub fn sort_kernels<S: AsRef<str>>(labels: &mut [S]) {
    labels.sort_by(|a, b| compare_kernels(a.as_ref(), b.as_ref()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn orders_like_kernel_releases() {
        let mut v = vec![
            "4.17.0-rc1",
            "4.16.1",
            "4.16.0",
            "4.16.0-rc2",
            "4.16.0-rc1",
            "4.9.0",
            "4.16.0-rc10",
            "not-a-version",
            "5.5.0-vanilla",
            "5.5.0-rc3-wakeidle",
            "5.5.0-rc3-vanilla",
            "5.4.0-vanilla",
        ];
        sort_kernels(&mut v);
        assert_eq!(
            v,
            vec![
                "4.9.0",
                "4.16.0-rc1",
                "4.16.0-rc2",
                "4.16.0-rc10",
                "4.16.0",
                "4.16.1",
                "4.17.0-rc1",
                "5.4.0-vanilla",
                "5.5.0-rc3-vanilla",
                "5.5.0-rc3-wakeidle",
                "5.5.0-vanilla",
                "not-a-version",
            ]
        );
    }

    proptest! {
        #[test]
        fn is_a_total_order(a in "[0-9v.a-z-]{0,12}", b in "[0-9v.a-z-]{0,12}", c in "[0-9v.a-z-]{0,12}") {
            prop_assert_eq!(compare_kernels(&a, &b), compare_kernels(&b, &a).reverse());
            prop_assert_eq!(compare_kernels(&a, &b) == Ordering::Equal, a == b);
            if compare_kernels(&a, &b) != Ordering::Greater && compare_kernels(&b, &c) != Ordering::Greater {
                prop_assert_ne!(compare_kernels(&a, &c), Ordering::Greater);
            }
        }
    }
}
