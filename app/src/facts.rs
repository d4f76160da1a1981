// SPDX-License-Identifier: GPL-3.0-or-later
//! What changed besides the kernel: the facts of a comparison's runs (from their files — kernel
//! config, lscpu, cpupower, sysctl, cmdline, LKP job files — and their tags), grouped, and the
//! differences of each kernel's runs against the baseline's.

use serde::{Deserialize, Serialize};

/// One fact that differs; `None` where that side's runs do not state it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct FactChange {
    pub key: String,
    pub base: Option<String>,
    pub other: Option<String>,
}

/// The differences of one kernel's runs against the baseline's, by group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct FactsDiff {
    pub kernel: String,
    /// (group, its changes): `machine`, `CPU`, `config options`, `sysctl`, `kernel command
    /// line`, `governor`, `tuned profile`, `environment`, `tags`, `benchmark`, `kernel`.
    pub groups: Vec<(String, Vec<FactChange>)>,
    /// Something other than the kernel (its version and config) changed.
    pub warning: bool,
}

/// Facts that say which run or file a run was, not what it ran on.
const IGNORED: [&str; 4] = [
    "lkp_column",
    "stats_source",
    "confidence_achieved_throughput",
    "confidence_warning",
];

/// The group of a fact key.
pub fn group_of(key: &str) -> &'static str {
    if key.starts_with("config.") || key == "kconfig" {
        "config options"
    } else if key.starts_with("sysctl.") {
        "sysctl"
    } else if key.starts_with("cpu.") {
        "CPU"
    } else if key.starts_with("tag.") {
        "tags"
    } else {
        match key {
            "governor" | "cpufreq_driver" => "governor",
            "cmdline" => "kernel command line",
            "machine" | "tbox_group" => "machine",
            "uname" | "commit" => "kernel",
            "tuned" => "tuned profile",
            "memory" | "compiler" | "rootfs" => "environment",
            _ => "benchmark",
        }
    }
}

/// Whether a change in this group means more than the kernel changed.
fn warns(group: &str) -> bool {
    !matches!(group, "kernel" | "config options")
}

/// The facts of a kernel's runs merged: a key's values over its runs, joined by ` | ` when the
/// runs disagree.
pub fn merge(runs: &[Vec<(String, String)>]) -> std::collections::BTreeMap<String, String> {
    let mut values: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for facts in runs {
        for (k, v) in facts {
            // How mmtests compares the benchmark is not a fact about the system.
            if IGNORED.contains(&k.as_str()) || k.starts_with("mmtests.") {
                continue;
            }
            let vs = values.entry(k.clone()).or_default();
            if !vs.contains(v) {
                vs.push(v.clone());
            }
        }
    }
    values
        .into_iter()
        .map(|(k, mut vs)| {
            vs.sort();
            (k, vs.join(" | "))
        })
        .collect()
}

/// Each kernel's differences against the baseline (the first); kernels without any are left out.
pub fn diff(
    kernels: &[String],
    facts: &[std::collections::BTreeMap<String, String>],
) -> Vec<FactsDiff> {
    let Some(base) = facts.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (kernel, other) in kernels.iter().zip(facts).skip(1) {
        let mut groups: Vec<(String, Vec<FactChange>)> = Vec::new();
        let keys: std::collections::BTreeSet<&String> = base.keys().chain(other.keys()).collect();
        for key in keys {
            let (b, o) = (base.get(key), other.get(key));
            if b == o {
                continue;
            }
            let group = group_of(key);
            let change = FactChange {
                key: key.clone(),
                base: b.cloned(),
                other: o.cloned(),
            };
            match groups.iter_mut().find(|(g, _)| g == group) {
                Some((_, changes)) => changes.push(change),
                None => groups.push((group.to_owned(), vec![change])),
            }
        }
        if groups.is_empty() {
            continue;
        }
        let warning = groups.iter().any(|(g, _)| warns(g));
        out.push(FactsDiff {
            kernel: kernel.clone(),
            groups,
            warning,
        });
    }
    out
}

/// The text footer: per kernel, what differs from the baseline, a loud line first when more
/// than the kernel changed. Empty when nothing differs.
pub fn text(baseline: &str, diffs: &[FactsDiff]) -> String {
    let mut out = String::new();
    for d in diffs {
        if d.warning {
            let what: Vec<&str> = d
                .groups
                .iter()
                .map(|(g, _)| g.as_str())
                .filter(|g| warns(g))
                .collect();
            out.push_str(&format!(
                "WARNING: more than the kernel changed between {baseline} and {}: {}\n",
                d.kernel,
                what.join(", ")
            ));
        }
        out.push_str(&format!("What differs from {baseline} in {}:\n", d.kernel));
        for (group, changes) in &d.groups {
            out.push_str(&format!("  {group}:\n"));
            for c in changes {
                let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(not stated)".into());
                let key = c.key.strip_prefix("config.").unwrap_or(&c.key);
                match (&c.base, &c.other) {
                    (None, Some(v)) if group == "config options" => {
                        out.push_str(&format!("    + {key}={v}\n"));
                    }
                    (Some(v), None) if group == "config options" => {
                        out.push_str(&format!("    - {key}={v}\n"));
                    }
                    _ => out.push_str(&format!(
                        "    {key}: {} -> {}\n",
                        show(&c.base),
                        show(&c.other)
                    )),
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn a_governor_change_warns_and_config_changes_do_not() {
        let base = merge(&[facts(&[
            ("governor", "performance"),
            ("config.CONFIG_HZ", "250"),
            ("uname", "6.1"),
        ])]);
        let other = merge(&[
            facts(&[
                ("governor", "powersave"),
                ("config.CONFIG_HZ", "1000"),
                ("config.CONFIG_NEW", "y"),
                ("uname", "6.2"),
            ]),
            facts(&[
                ("governor", "powersave"),
                ("config.CONFIG_HZ", "1000"),
                ("config.CONFIG_NEW", "y"),
                ("uname", "6.2"),
            ]),
        ]);
        let kernels = ["6.1".to_owned(), "6.2".to_owned()];
        let d = diff(&kernels, &[base.clone(), other]);
        assert_eq!(d.len(), 1);
        assert!(d[0].warning);
        let t = text("6.1", &d);
        assert!(
            t.starts_with("WARNING: more than the kernel changed between 6.1 and 6.2: governor\n"),
            "{t}"
        );
        assert!(t.contains("    CONFIG_HZ: 250 -> 1000\n"), "{t}");
        assert!(t.contains("    + CONFIG_NEW=y\n"), "{t}");
        // Only the kernel and its config: listed, no warning.
        let quiet = merge(&[facts(&[
            ("governor", "performance"),
            ("config.CONFIG_HZ", "300"),
            ("uname", "6.3"),
        ])]);
        let d = diff(&kernels, &[base, quiet]);
        assert!(!d[0].warning);
        assert!(!text("6.1", &d).contains("WARNING"));
    }
}
