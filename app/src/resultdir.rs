// SPDX-License-Identifier: GPL-3.0-or-later
//! Result directories as harnesses leave them on disk, packed for one upload: an LKP result
//! directory (`stats.json` or the raw log, `job.yaml`, system files) or an mmtests `work/log`
//! tree (a tar archive). Shared by the CLI (`perfline upload --lkp-result/--mmtests-log`) and
//! the upload page (a chosen folder), so both send what the server expects.

/// The system files Perfline reads facts from, when a result directory has them.
pub const SYSTEM_FILES: [&str; 9] = [
    "kernel-config",
    "config",
    ".config",
    "uname",
    "cmdline",
    "lscpu",
    "cpupower",
    "sysctl",
    "tuned",
];

/// Upload fields an LKP job states.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct JobMeta {
    pub machine: Option<String>,
    pub kernel: Option<String>,
    pub commit: Option<String>,
}

/// A top-level `key: value` of a job file.
pub fn job_value(job: &str, key: &str) -> Option<String> {
    job.lines()
        .filter(|l| !l.starts_with([' ', '\t', '#', '-']))
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().trim_matches(['"', '\'']).to_owned())
        .filter(|v| !v.is_empty())
}

/// What an LKP job says about the run: `testbox` is the machine, `commit` the commit, and the
/// kernel is the version in the `kernel:` image path (`.../vmlinuz-4.16.0-rc1-00001-ga337531`).
pub fn job_meta(job: &str) -> JobMeta {
    let kernel = job_value(job, "kernel").and_then(|k| {
        let file = k.rsplit('/').next()?;
        let version = file.strip_prefix("vmlinuz-")?;
        (!version.is_empty()).then(|| version.to_owned())
    });
    JobMeta {
        machine: job_value(job, "testbox"),
        kernel,
        commit: job_value(job, "commit"),
    }
}

/// The files of an LKP result directory to send, by name at its top: `stats.json` when LKP
/// wrote it, else the raw log named after the job's `testcase`; then `job.yaml` and the system
/// files present. `Err` says what is missing.
pub fn lkp_files(names: &[&str], job: &str) -> Result<Vec<String>, String> {
    let has = |n: &str| names.contains(&n);
    let mut out = Vec::new();
    if has("stats.json") {
        out.push("stats.json".to_owned());
    } else {
        let testcase =
            job_value(job, "testcase").ok_or("no stats.json, and job.yaml names no testcase")?;
        if !has(&testcase) {
            return Err(format!("neither stats.json nor the raw log '{testcase}'"));
        }
        out.push(testcase);
    }
    out.push("job.yaml".to_owned());
    out.extend(
        SYSTEM_FILES
            .iter()
            .filter(|n| has(n))
            .map(|n| (*n).to_owned()),
    );
    Ok(out)
}

/// A POSIX (ustar) tar archive of `entries` (path, bytes): regular files, mode 0644, time 0.
/// What the server's mmtests reader takes, without a compressor in the browser. Paths longer
/// than 100 bytes are split at a `/` into ustar's prefix; a path that cannot be split (or over
/// 255 bytes) is an error, as is a file of 8 GiB or more.
pub fn ustar(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(
        entries
            .iter()
            .map(|(_, b)| 512 + b.len().div_ceil(512) * 512)
            .sum::<usize>()
            + 1024,
    );
    for (path, bytes) in entries {
        let (prefix, name) = split_path(path)?;
        if bytes.len() as u64 >= 8 << 30 {
            return Err(format!("{path}: too large for a tar entry"));
        }
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        octal(&mut h[100..108], 0o644);
        octal(&mut h[108..116], 0);
        octal(&mut h[116..124], 0);
        octal(&mut h[124..136], bytes.len() as u64);
        octal(&mut h[136..148], 0);
        h[148..156].copy_from_slice(b"        ");
        h[156] = b'0';
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[345..345 + prefix.len()].copy_from_slice(prefix.as_bytes());
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        let check = format!("{sum:06o}\0 ");
        h[148..156].copy_from_slice(check.as_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(bytes);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    Ok(out)
}

/// `value` as zero-padded octal filling `field` but its last byte (a NUL).
fn octal(field: &mut [u8], value: u64) {
    let digits = format!("{value:0width$o}", width = field.len() - 1);
    field[..digits.len()].copy_from_slice(digits.as_bytes());
    field[digits.len()] = 0;
}

/// ustar's (prefix, name) for `path`: the name at most 100 bytes, the prefix at most 155.
#[expect(
    clippy::string_slice,
    reason = "cut around a `/` that `char_indices` found"
)]
fn split_path(path: &str) -> Result<(&str, &str), String> {
    if path.is_empty() || path.contains('\0') {
        return Err(format!("{path:?}: not a file name"));
    }
    if path.len() <= 100 {
        return Ok(("", path));
    }
    path.char_indices()
        .filter(|&(i, c)| c == '/' && i <= 155 && path.len() - i - 1 <= 100 && i > 0)
        .map(|(i, _)| (&path[..i], &path[i + 1..]))
        .next()
        .ok_or_else(|| format!("{path}: too long a path for a tar entry"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_lkp_job_states_machine_commit_and_kernel() {
        let job = "---\nsuite: netperf\ntestcase: netperf\ntestbox: lkp-bdw-de1\ncommit: a337531b942bd8a03e7052444d7e36972aac2d92\nkernel: \"/pkg/linux/x86_64-rhel-7.2/gcc-7/a337531b942bd8a03e7052444d7e36972aac2d92/vmlinuz-4.16.0-rc1-00001-ga337531\"\nnetperf:\n  testbox: nested-is-ignored\n";
        assert_eq!(
            job_meta(job),
            JobMeta {
                machine: Some("lkp-bdw-de1".into()),
                kernel: Some("4.16.0-rc1-00001-ga337531".into()),
                commit: Some("a337531b942bd8a03e7052444d7e36972aac2d92".into()),
            }
        );
        assert_eq!(job_value(job, "testcase").as_deref(), Some("netperf"));
        assert_eq!(job_meta("kernel: /boot/bzImage\n").kernel, None);
    }

    #[test]
    fn an_lkp_directory_sends_stats_else_the_raw_log() {
        let job = "testcase: netperf\n";
        assert_eq!(
            lkp_files(
                &["stats.json", "netperf", "job.yaml", "lscpu", "dmesg"],
                job
            )
            .unwrap(),
            ["stats.json", "job.yaml", "lscpu"]
        );
        assert_eq!(
            lkp_files(&["netperf", "job.yaml"], job).unwrap(),
            ["netperf", "job.yaml"]
        );
        assert!(lkp_files(&["job.yaml"], job)
            .unwrap_err()
            .contains("neither stats.json nor the raw log 'netperf'"));
        assert!(lkp_files(&["job.yaml"], "suite: x\n").is_err());
    }

    #[test]
    fn long_paths_split_into_prefix_and_name() {
        let long = format!("{}/{}", "d".repeat(120), "f".repeat(90));
        assert_eq!(
            split_path(&long).unwrap(),
            ("d".repeat(120).as_str(), "f".repeat(90).as_str())
        );
        assert!(split_path(&"x".repeat(101)).is_err());
        assert!(split_path("").is_err());
        let archive = ustar(&[("a/b.txt".into(), b"hello".to_vec())]).unwrap();
        assert_eq!(archive.len(), 512 + 512 + 1024);
        assert_eq!(&archive[..7], b"a/b.txt");
        assert_eq!(&archive[124..136], b"00000000005\0");
        assert_eq!(&archive[512..517], b"hello");
    }
}
