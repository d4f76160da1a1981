// SPDX-License-Identifier: GPL-3.0-or-later
//! Facts about the system a run ran on, from the files benchmark harnesses keep beside the
//! results: a kernel config, `uname -a`, `/proc/cmdline`, `lscpu`, `cpupower frequency-info`,
//! `sysctl -a`, the tuned profile; and LKP's job and host files. Keys are grouped by prefix:
//! `config.`, `sysctl.`, `cpu.`, and plain `uname`, `cmdline`, `governor`, `tuned`, `memory`...
//! so that a comparison can say what changed besides the kernel (`app::facts`).

/// The most facts one file may give (a kernel config has a few thousand options set).
pub const MAX_FACTS: usize = 20_000;

/// The facts of a system file named `name` (its last path component), or `None` if Perfline
/// does not know the name.
pub fn system_facts(name: &str, text: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let line = || {
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_owned()
    };
    match name {
        "kernel-config" | "config" | ".config" | "kconfig" => {
            for l in text.lines().map(str::trim) {
                if let Some((k, v)) = l.split_once('=') {
                    if k.starts_with("CONFIG_") {
                        out.push((format!("config.{k}"), v.trim_matches('"').to_owned()));
                    }
                }
            }
        }
        "uname" | "uname-a" => out.push(("uname".into(), line())),
        "cmdline" | "proc-cmdline" => out.push(("cmdline".into(), line())),
        "tuned" | "tuned-profile" => out.push(("tuned".into(), line())),
        "lscpu" => {
            for l in text.lines() {
                if let Some((k, v)) = l.split_once(':') {
                    let key = match k.trim() {
                        "Model name" => "cpu.model",
                        "CPU(s)" => "cpu.count",
                        "Thread(s) per core" => "cpu.threads_per_core",
                        "Socket(s)" => "cpu.sockets",
                        "NUMA node(s)" => "cpu.numa_nodes",
                        "CPU max MHz" => "cpu.max_mhz",
                        "Architecture" => "arch",
                        _ => continue,
                    };
                    out.push((key.into(), v.trim().to_owned()));
                }
            }
        }
        "cpupower" | "cpupower-frequency-info" => {
            // `The governor "performance" may decide which speed to use`
            for l in text.lines() {
                if let Some(rest) = l.trim().strip_prefix("The governor \"") {
                    if let Some((g, _)) = rest.split_once('"') {
                        out.push(("governor".into(), g.to_owned()));
                    }
                }
                if let Some(rest) = l.trim().strip_prefix("driver:") {
                    out.push(("cpufreq_driver".into(), rest.trim().to_owned()));
                }
            }
        }
        "sysctl" | "sysctl-a" => {
            for l in text.lines() {
                if let Some((k, v)) = l.split_once(" = ") {
                    out.push((format!("sysctl.{}", k.trim()), v.trim().to_owned()));
                }
            }
        }
        _ => return None,
    }
    out.truncate(MAX_FACTS + 1);
    Some(out)
}

/// The facts of a side file uploaded with results, by its name: an LKP job or host file
/// (`job.yaml`, `*.yaml`, `host`), or a system file `system_facts` knows; `None` for anything
/// else (a results file).
pub fn side_file(name: &str, bytes: &[u8]) -> Option<Vec<(String, String)>> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let text = std::str::from_utf8(bytes).ok()?;
    if base.ends_with(".yaml") || base.ends_with(".yml") || base == "host" {
        return Some(lkp_job_facts(text));
    }
    system_facts(base, text)
}

/// LKP's job file (`job.yaml`) and host file: the keys that describe the system.
pub fn lkp_job_facts(text: &str) -> Vec<(String, String)> {
    const KEYS: [(&str, &str); 11] = [
        ("testbox", "machine"),
        ("arch", "arch"),
        ("tbox_group", "tbox_group"),
        ("model", "cpu.model"),
        ("nr_cpu", "cpu.count"),
        ("memory", "memory"),
        ("cpufreq_governor", "governor"),
        ("compiler", "compiler"),
        ("rootfs", "rootfs"),
        ("kconfig", "kconfig"),
        ("commit", "commit"),
    ];
    let mut out = Vec::new();
    // The job's parameters (the robot mail's "with following parameters"): lkp-tests' common
    // axes at the top level, and the options of the testcase's own block (`netperf: {test:
    // TCP_STREAM}`), as `param.<name>`.
    const PARAMS: [&str; 20] = [
        "runtime",
        "nr_threads",
        "nr_task",
        "ip",
        "cluster",
        "test",
        "mode",
        "ucode",
        "disk",
        "fs",
        "fs2",
        "iterations",
        "load",
        "nr_processes",
        "size",
        "thp_enabled",
        "thp_defrag",
        "send_size",
        "testtime",
        "protocol",
    ];
    let testcase = text.lines().find_map(|l| {
        let v = l
            .strip_prefix("testcase:")?
            .trim()
            .trim_matches(['"', '\'']);
        (!v.is_empty()).then(|| v.to_owned())
    });
    let mut block: Option<&str> = None;
    let mut params: Vec<(String, String)> = Vec::new();
    let param = |k: &str, v: &str, params: &mut Vec<(String, String)>| {
        let v = v.trim().trim_matches(['"', '\'']);
        let name = format!("param.{k}");
        if !v.is_empty() && !params.iter().any(|(p, _)| *p == name) {
            params.push((name, v.to_owned()));
        }
    };
    for l in text.lines() {
        if l.starts_with('#') {
            continue;
        }
        // One level into the testcase's block.
        if let Some(inner) = l.strip_prefix("  ") {
            if block.is_some() && !inner.starts_with(' ') {
                if let Some((k, v)) = inner.split_once(':') {
                    param(k.trim(), v, &mut params);
                }
            }
            continue;
        }
        block = None;
        if l.starts_with(' ') {
            continue;
        }
        if let Some((k, v)) = l.split_once(':') {
            let k = k.trim();
            if v.trim().is_empty() && testcase.as_deref() == Some(k) {
                block = Some(k);
            } else if PARAMS.contains(&k) {
                param(k, v, &mut params);
            }
        }
    }
    for l in text.lines() {
        // Top-level `key: value` only.
        if l.starts_with(' ') || l.starts_with('#') {
            continue;
        }
        if let Some((k, v)) = l.split_once(':') {
            if let Some((_, name)) = KEYS.iter().find(|(key, _)| *key == k.trim()) {
                let v = v.trim().trim_matches(['"', '\'']);
                if !v.is_empty() {
                    out.push(((*name).to_owned(), v.to_owned()));
                }
            }
        }
    }
    out.extend(params);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_architecture_comes_from_lscpu_or_the_lkp_job() {
        let lscpu = system_facts(
            "lscpu",
            "Architecture:          x86_64\nCPU(s):                16\n",
        )
        .unwrap();
        assert!(
            lscpu.contains(&("arch".into(), "x86_64".into())),
            "{lscpu:?}"
        );
        let job = lkp_job_facts("testbox: lkp-bdw-de1\narch: aarch64\n");
        assert!(job.contains(&("arch".into(), "aarch64".into())), "{job:?}");
    }

    #[test]
    fn an_lkp_job_file_gives_its_parameters() {
        let job = lkp_job_facts(
            "suite: netperf\ntestcase: netperf\ncategory: benchmark\nip: ipv4\nruntime: 300s\n\
             nr_threads: 50%\ncluster: cs-localhost\nif role client:\n  netperf:\n    test: X\n\
             netperf:\n  test: TCP_STREAM\n  send_size: 10K\nqueue: bisect\n",
        );
        let params: Vec<(&str, &str)> = job
            .iter()
            .filter(|(k, _)| k.starts_with("param."))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            params,
            [
                ("param.ip", "ipv4"),
                ("param.runtime", "300s"),
                ("param.nr_threads", "50%"),
                ("param.cluster", "cs-localhost"),
                ("param.test", "TCP_STREAM"),
                ("param.send_size", "10K"),
            ]
        );
    }

    #[test]
    fn system_files_become_grouped_facts() {
        let c = system_facts(
            "kernel-config",
            "# comment\nCONFIG_HZ=250\n# CONFIG_FOO is not set\nCONFIG_LOCALVERSION=\"-x\"\n",
        )
        .unwrap();
        assert_eq!(
            c,
            [
                ("config.CONFIG_HZ".into(), "250".into()),
                ("config.CONFIG_LOCALVERSION".into(), "-x".into())
            ]
        );
        let g = system_facts("cpupower", "analyzing CPU 0:\n  driver: intel_pstate\n  current policy: frequency should be within 800 MHz and 4.00 GHz.\n                  The governor \"powersave\" may decide which speed to use\n").unwrap();
        assert_eq!(
            g,
            [
                ("cpufreq_driver".into(), "intel_pstate".into()),
                ("governor".into(), "powersave".into())
            ]
        );
        let s = system_facts(
            "sysctl",
            "kernel.sched_migration_cost_ns = 500000\nnet.core.rmem_max = 212992\n",
        )
        .unwrap();
        assert_eq!(
            s[0],
            (
                "sysctl.kernel.sched_migration_cost_ns".into(),
                "500000".into()
            )
        );
        let cpu = system_facts("lscpu", "Model name:            Intel(R) Xeon(R) CPU D-1541 @ 2.10GHz\nCPU(s):                16\n").unwrap();
        assert_eq!(cpu[0].1, "Intel(R) Xeon(R) CPU D-1541 @ 2.10GHz");
        assert!(system_facts("TCP_STREAM-64.1", "").is_none());
        let job = lkp_job_facts("testbox: lkp-bdw-de1\nnr_cpu: 16\ncpufreq_governor: performance\nnetperf:\n  runtime: 900s\n");
        assert_eq!(
            job,
            [
                ("machine".into(), "lkp-bdw-de1".into()),
                ("cpu.count".into(), "16".into()),
                ("governor".into(), "performance".into())
            ]
        );
    }
}
