// SPDX-License-Identifier: GPL-3.0-or-later
//! hackbench: rt-tests `hackbench` (`Time: 0.087` after a `Running in process mode with N
//! groups ...` line) and `perf bench sched messaging` (`Total time: 0.133 [sec]` after
//! `# N groups == M processes run`). One sample per time line; the group count is the parameter;
//! lower is better.

use app::label::Direction;

use super::{resolve_key, Budget, IngestError, ParsedRun, Row, RunBuilder, UploadMeta};

/// Whether the text looks like hackbench output.
pub fn detect(text: &str) -> bool {
    (text.contains("Running in ") && text.contains(" mode with ") && text.contains("Time:"))
        || (text.contains("Total time:")
            && (text.contains("sched/messaging") || text.contains(" groups == ")))
}

fn number_after<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    line.trim()
        .strip_prefix(prefix)
        .map(|rest| rest.split_whitespace().next().unwrap_or(""))
}

pub fn parse(
    text: &str,
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<Vec<ParsedRun>, IngestError> {
    let mut builder = RunBuilder::within(budget);
    let mut groups: Option<String> = None;
    let mut mode: Option<&str> = None;
    let mut facts: Vec<(String, String)> = Vec::new();
    let mut run: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Running in ") {
            // "Running in process mode with 4 groups using 40 file descriptors each (== 160 tasks)"
            let words: Vec<&str> = rest.split_whitespace().collect();
            mode = words.first().copied();
            groups = words
                .iter()
                .position(|w| *w == "with")
                .and_then(|p| words.get(p + 1))
                .map(ToString::to_string);
            if let Some(fds) = words
                .iter()
                .position(|w| *w == "using")
                .and_then(|p| words.get(p + 1))
            {
                set_fact(&mut facts, "fds_per_group", fds);
            }
        } else if let Some(rest) = t.strip_prefix("Each sender will pass ") {
            set_fact(&mut facts, "messages", rest);
        } else if t.starts_with('#') && t.contains(" groups == ") {
            // perf bench: "# 10 groups == 400 processes run" (or "threads run")
            let words: Vec<&str> = t.trim_start_matches('#').split_whitespace().collect();
            groups = words.first().map(ToString::to_string);
            mode = if t.contains("threads run") {
                Some("thread")
            } else {
                Some("process")
            };
        } else if let Some(value) =
            number_after(t, "Time:").or_else(|| number_after(t, "Total time:"))
        {
            let value: f64 = value.parse().map_err(|_| {
                IngestError::at_line(line_no, format!("hackbench time '{value}' is not a number"))
            })?;
            let param = groups.clone().ok_or_else(|| {
                IngestError::at_line(
                    line_no,
                    "a hackbench time before any 'Running in ... mode with N groups' line",
                )
            })?;
            if let Some(mode) = mode {
                set_fact(&mut facts, "mode", mode);
            }
            let r = match run {
                Some(r) => r,
                None => {
                    let mut m = meta.clone();
                    if m.benchmark.is_none() {
                        m.set("benchmark", "hackbench")?;
                    }
                    let key = resolve_key(line_no, &m, None, None, None, None)?;
                    let r = builder.run(key, &meta.tags);
                    run = Some(r);
                    r
                }
            };
            builder.push(Row {
                line: line_no,
                run: r,
                metric: "time",
                param: &param,
                unit: Some("s"),
                direction: Some(Direction::Lower),
                iteration: None,
                value,
            })?;
        }
    }
    let mut runs = builder.finish().map_err(|e| {
        if e.line.is_none() {
            IngestError::new("no hackbench 'Time:' or 'Total time:' line found")
        } else {
            e
        }
    })?;
    for r in &mut runs {
        r.facts.extend(facts.iter().cloned());
    }
    Ok(runs)
}

fn set_fact(facts: &mut Vec<(String, String)>, key: &str, value: &str) {
    match facts.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => *v = value.to_owned(),
        None => facts.push((key.to_owned(), value.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use crate::ingest::{check_fixture, parse_file, test_meta, Format};

    #[test]
    fn rt_tests_hackbench_fixture() {
        check_fixture(
            "hackbench/hackbench-rt-tests-pipes.txt",
            Format::Hackbench,
            r#"
run hackbench m1 6.1.0 None
  fact fds_per_group=40
  fact messages=100 messages of 100 bytes
  fact mode=process
  time [1] Some("s") lower [(0, 0.087), (1, 0.067), (2, 0.057)]
  time [2] Some("s") lower [(0, 0.06), (1, 0.09), (2, 0.054)]
  time [4] Some("s") lower [(0, 0.12), (1, 0.113), (2, 0.094)]
"#,
        );
    }

    #[test]
    fn perf_bench_sched_messaging() {
        let text = "# Running 'sched/messaging' benchmark:\n# 20 sender and receiver threads per group\n# 10 groups == 400 threads run\n\n     Total time: 0.133 [sec]\n";
        let (format, runs) = parse_file(text.as_bytes(), None, &test_meta()).unwrap();
        assert_eq!(format, Format::Hackbench);
        assert_eq!(runs[0].series[0].param, "10");
        assert_eq!(runs[0].series[0].samples, vec![(0, 0.133)]);
        assert!(runs[0]
            .facts
            .contains(&("mode".to_owned(), "thread".to_owned())));
    }

    #[test]
    fn broken_time_names_the_line() {
        let text = "Running in process mode with 1 groups using 40 file descriptors each (== 40 tasks)\nTime: abc\n";
        let e = parse_file(text.as_bytes(), None, &test_meta()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: hackbench time 'abc' is not a number"
        );
    }
}
