// SPDX-License-Identifier: GPL-3.0-or-later
//! sysbench 1.0 `run` output (cpu, memory, threads, mutex, fileio, oltp): the headline rates and
//! the latency lines as metrics, each with its direction. The thread count is the parameter.

use app::label::Direction;

use super::{resolve_key, Budget, IngestError, ParsedRun, Row, RunBuilder, UploadMeta};

pub fn detect(text: &str) -> bool {
    text.trim_start().starts_with("sysbench ") && text.contains("General statistics:")
}

/// The test a sysbench output comes from, from what only that test prints.
fn test_name(text: &str) -> &'static str {
    if text.contains("CPU speed:") {
        "cpu"
    } else if text.contains("memory speed test") {
        "memory"
    } else if text.contains("File operations:") {
        "fileio"
    } else if text.contains("SQL statistics:") {
        "oltp"
    } else if text.contains("mutex") {
        "mutex"
    } else {
        "threads"
    }
}

/// The first number in `s`, with any unit suffix such as `s` or `ms` removed.
fn first_number(s: &str) -> Option<f64> {
    s.split(|c: char| c.is_whitespace() || c == '(' || c == '/')
        .filter(|w| !w.is_empty())
        .find_map(|w| {
            w.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == ',' || c == ')')
                .parse::<f64>()
                .ok()
        })
}

/// The number inside the parentheses of `N (X per second)`.
fn paren_number(s: &str) -> Option<f64> {
    let inner = s.split_once('(')?.1;
    first_number(inner)
}

pub fn parse(
    text: &str,
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<Vec<ParsedRun>, IngestError> {
    let test = test_name(text);
    let mut m = meta.clone();
    if m.benchmark.is_none() {
        m.set("benchmark", &format!("sysbench-{test}"))?;
    }
    let mut threads = "1".to_owned();
    let mut facts: Vec<(String, String)> = vec![("sysbench_test".into(), test.into())];
    if let Some(v) = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("sysbench "))
    {
        facts.push((
            "sysbench_version".into(),
            v.split_whitespace().next().unwrap_or("").into(),
        ));
    }
    let mut builder = RunBuilder::within(budget);
    let key = resolve_key(1, &m, None, None, None, None)?;
    let run = builder.run(key, &meta.tags);
    let mut section = "";
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        let t = line.trim();
        let (label, rest) = match t.split_once(':') {
            Some((l, r)) => (l.trim(), r.trim()),
            None => {
                // "11100.19 MiB transferred (5547.16 MiB/sec)"
                if t.contains("MiB transferred") {
                    let v = paren_number(t).ok_or_else(|| {
                        IngestError::at_line(line_no, "no MiB/sec in the transfer line")
                    })?;
                    push(
                        &mut builder,
                        run,
                        line_no,
                        "MiB/sec",
                        &threads,
                        "MiB/s",
                        Direction::Higher,
                        v,
                    )?;
                }
                continue;
            }
        };
        if rest.is_empty() {
            section = label;
            continue;
        }
        let num = |s: &str| {
            first_number(s).ok_or_else(|| {
                IngestError::at_line(line_no, format!("sysbench {label} '{s}' is not a number"))
            })
        };
        match (section, label) {
            (_, "Number of threads") => {
                threads = rest.to_owned();
                facts.push(("threads".into(), rest.into()));
            }
            (_, "block size" | "total size" | "operation" | "scope" | "Prime numbers limit") => {
                facts.push((label.replace(' ', "_").to_lowercase(), rest.into()));
            }
            ("CPU speed", "events per second") => push(
                &mut builder,
                run,
                line_no,
                "events/sec",
                &threads,
                "events/s",
                Direction::Higher,
                num(rest)?,
            )?,
            (_, "Total operations") => {
                let v = paren_number(rest).ok_or_else(|| {
                    IngestError::at_line(line_no, "no per-second rate in 'Total operations'")
                })?;
                push(
                    &mut builder,
                    run,
                    line_no,
                    "operations/sec",
                    &threads,
                    "ops/s",
                    Direction::Higher,
                    v,
                )?;
            }
            ("General statistics", "total time") => push(
                &mut builder,
                run,
                line_no,
                "total-time",
                &threads,
                "s",
                Direction::Lower,
                num(rest)?,
            )?,
            ("General statistics", "total number of events") => push(
                &mut builder,
                run,
                line_no,
                "events",
                &threads,
                "events",
                Direction::Higher,
                num(rest)?,
            )?,
            ("Latency (ms)", "min" | "avg" | "max" | "95th percentile") => {
                let metric = format!(
                    "latency-{}",
                    if label == "95th percentile" {
                        "95th"
                    } else {
                        label
                    }
                );
                push(
                    &mut builder,
                    run,
                    line_no,
                    &metric,
                    &threads,
                    "ms",
                    Direction::Lower,
                    num(rest)?,
                )?;
            }
            ("Throughput", "read, MiB/s" | "written, MiB/s")
            | ("File operations", "reads/s" | "writes/s" | "fsyncs/s") => {
                let metric = label.replace(", ", "-").replace(' ', "-");
                push(
                    &mut builder,
                    run,
                    line_no,
                    &metric,
                    &threads,
                    if label.contains("MiB") {
                        "MiB/s"
                    } else {
                        "ops/s"
                    },
                    Direction::Higher,
                    num(rest)?,
                )?;
            }
            (_, "transactions" | "queries") if rest.contains("per sec") => {
                let v = paren_number(rest).ok_or_else(|| {
                    IngestError::at_line(line_no, format!("no per-second rate in '{label}'"))
                })?;
                push(
                    &mut builder,
                    run,
                    line_no,
                    &format!("{label}/sec"),
                    &threads,
                    "1/s",
                    Direction::Higher,
                    v,
                )?;
            }
            _ => {}
        }
    }
    let mut runs = builder
        .finish()
        .map_err(|_| IngestError::new("sysbench output without any result line"))?;
    for r in &mut runs {
        r.facts.extend(facts.iter().cloned());
    }
    Ok(runs)
}

#[expect(
    clippy::too_many_arguments,
    reason = "one sample row spelled out at each of its call sites"
)]
fn push(
    b: &mut RunBuilder,
    run: usize,
    line: u64,
    metric: &str,
    param: &str,
    unit: &str,
    direction: Direction,
    value: f64,
) -> Result<(), IngestError> {
    b.push(Row {
        line,
        run,
        metric,
        param,
        unit: Some(unit),
        direction: Some(direction),
        iteration: None,
        value,
    })
}

#[cfg(test)]
mod tests {
    use crate::ingest::{check_fixture, Format};

    #[test]
    fn cpu() {
        check_fixture(
            "sysbench/sysbench-cpu.txt",
            Format::Sysbench,
            r#"
run sysbench-cpu m1 6.1.0 None
  fact sysbench_test=cpu
  fact sysbench_version=1.0.20
  fact threads=1
  fact prime_numbers_limit=10000
  events/sec [1] Some("events/s") higher [(0, 3957.43)]
  total-time [1] Some("s") lower [(0, 2.0003)]
  events [1] Some("events") higher [(0, 7919.0)]
  latency-min [1] Some("ms") lower [(0, 0.22)]
  latency-avg [1] Some("ms") lower [(0, 0.25)]
  latency-max [1] Some("ms") lower [(0, 1.74)]
  latency-95th [1] Some("ms") lower [(0, 0.31)]
"#,
        );
    }

    #[test]
    fn memory() {
        check_fixture(
            "sysbench/sysbench-memory.txt",
            Format::Sysbench,
            r#"
run sysbench-memory m1 6.1.0 None
  fact sysbench_test=memory
  fact sysbench_version=1.0.20
  fact threads=1
  fact block_size=1KiB
  fact total_size=102400MiB
  fact operation=write
  fact scope=global
  operations/sec [1] Some("ops/s") higher [(0, 5680292.14)]
  MiB/sec [1] Some("MiB/s") higher [(0, 5547.16)]
  total-time [1] Some("s") lower [(0, 2.0002)]
  events [1] Some("events") higher [(0, 11366593.0)]
  latency-min [1] Some("ms") lower [(0, 0.0)]
  latency-avg [1] Some("ms") lower [(0, 0.0)]
  latency-max [1] Some("ms") lower [(0, 1.85)]
  latency-95th [1] Some("ms") lower [(0, 0.0)]
"#,
        );
    }

    #[test]
    fn threads() {
        check_fixture(
            "sysbench/sysbench-threads.txt",
            Format::Sysbench,
            r#"
run sysbench-threads m1 6.1.0 None
  fact sysbench_test=threads
  fact sysbench_version=1.0.20
  fact threads=1
  total-time [1] Some("s") lower [(0, 2.0005)]
  events [1] Some("events") higher [(0, 3275.0)]
  latency-min [1] Some("ms") lower [(0, 0.51)]
  latency-avg [1] Some("ms") lower [(0, 0.61)]
  latency-max [1] Some("ms") lower [(0, 1.94)]
  latency-95th [1] Some("ms") lower [(0, 0.7)]
"#,
        );
    }

    /// sysbench 1.0 fileio and oltp run outputs (the layout sysbench 1.0.20 prints).
    #[test]
    fn fileio_and_oltp() {
        use crate::ingest::{parse_file, test_meta};
        let fileio = "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nRunning the test with following options:\nNumber of threads: 4\n\nExtra file open flags: (none)\n128 files, 16MiB each\n\nFile operations:\n    reads/s:                      1234.56\n    writes/s:                     823.04\n    fsyncs/s:                     2634.21\n\nThroughput:\n    read, MiB/s:                  19.29\n    written, MiB/s:               12.86\n\nGeneral statistics:\n    total time:                          10.0113s\n    total number of events:              46911\n";
        let (format, runs) = parse_file(fileio.as_bytes(), None, &test_meta()).unwrap();
        assert_eq!(format, Format::Sysbench);
        assert_eq!(runs[0].key.benchmark.as_str(), "sysbench-fileio");
        let got: Vec<String> = runs[0]
            .series
            .iter()
            .map(|s| {
                format!(
                    "{} [{}] {} {:?}",
                    s.metric,
                    s.param,
                    s.direction.as_str(),
                    s.samples
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                "reads/s [4] higher [(0, 1234.56)]",
                "writes/s [4] higher [(0, 823.04)]",
                "fsyncs/s [4] higher [(0, 2634.21)]",
                "read-MiB/s [4] higher [(0, 19.29)]",
                "written-MiB/s [4] higher [(0, 12.86)]",
                "total-time [4] lower [(0, 10.0113)]",
                "events [4] higher [(0, 46911.0)]",
            ]
        );
        let oltp = "sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)\n\nRunning the test with following options:\nNumber of threads: 8\n\nSQL statistics:\n    queries performed:\n        read:                            140000\n        write:                           40000\n        total:                           200000\n    transactions:                        10000  (1000.21 per sec.)\n    queries:                             200000 (20004.20 per sec.)\n    ignored errors:                      0      (0.00 per sec.)\n\nGeneral statistics:\n    total time:                          10.0012s\n    total number of events:              10000\n\nLatency (ms):\n         min:                                    2.11\n         avg:                                    3.99\n         max:                                   25.12\n         95th percentile:                        5.47\n";
        let (_, runs) = parse_file(oltp.as_bytes(), None, &test_meta()).unwrap();
        assert_eq!(runs[0].key.benchmark.as_str(), "sysbench-oltp");
        let got: Vec<String> = runs[0]
            .series
            .iter()
            .map(|s| format!("{} [{}] {:?}", s.metric, s.param, s.samples))
            .collect();
        assert_eq!(
            got,
            vec![
                "transactions/sec [8] [(0, 1000.21)]",
                "queries/sec [8] [(0, 20004.2)]",
                "total-time [8] [(0, 10.0012)]",
                "events [8] [(0, 10000.0)]",
                "latency-min [8] [(0, 2.11)]",
                "latency-avg [8] [(0, 3.99)]",
                "latency-max [8] [(0, 25.12)]",
                "latency-95th [8] [(0, 5.47)]",
            ]
        );
    }
}
