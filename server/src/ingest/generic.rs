// SPDX-License-Identifier: GPL-3.0-or-later
//! The generic formats: a CSV of samples, and the same content as JSON.
//!
//! CSV: a header naming columns from `benchmark,metric,param,iteration,value,unit,direction,
//! kernel,machine,commit` (in any order; `metric` and `value` are required), then one row per
//! sample. A row's benchmark/machine/kernel/commit override the upload's fields, so one file can
//! carry several kernels. Lines starting with `#` are comments. Only `value` is required: without
//! a `metric` column the metric is mmtests' name for the benchmark's samples (`tcpstream-send`
//! for netperf-tcp, `time` for hackbench, with their directions) or else the benchmark's name,
//! so a tidy `kernel,param,iteration,value` file (as mmtests' samples) uploads as it is.

use std::collections::BTreeMap;

use app::label::Direction;
use serde::Deserialize;

use super::{resolve_key, strip_bom, Budget, IngestError, ParsedRun, Row, RunBuilder, UploadMeta};

const COLUMNS: &[&str] = &[
    "benchmark",
    "metric",
    "param",
    "iteration",
    "value",
    "unit",
    "direction",
    "kernel",
    "machine",
    "commit",
];

#[derive(Default)]
struct Columns {
    benchmark: Option<usize>,
    metric: Option<usize>,
    param: Option<usize>,
    iteration: Option<usize>,
    value: usize,
    unit: Option<usize>,
    direction: Option<usize>,
    kernel: Option<usize>,
    machine: Option<usize>,
    commit: Option<usize>,
}

fn columns(header: &csv::StringRecord) -> Result<Columns, IngestError> {
    let mut found: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (i, raw) in header.iter().enumerate() {
        let name = raw.trim().to_ascii_lowercase();
        let Some(known) = COLUMNS.iter().find(|c| **c == name) else {
            return Err(IngestError {
                field: Some(raw.to_owned()),
                ..IngestError::at_line(
                    1,
                    format!(
                        "unknown column '{raw}'; the columns are: {}",
                        COLUMNS.join(", ")
                    ),
                )
            });
        };
        if found.insert(known, i).is_some() {
            return Err(IngestError::at_line(
                1,
                format!("column '{known}' appears twice"),
            ));
        }
    }
    let required = |name: &str| {
        found
            .get(name)
            .copied()
            .ok_or_else(|| IngestError::at_line(1, format!("the header has no '{name}' column")))
    };
    Ok(Columns {
        metric: found.get("metric").copied(),
        value: required("value")?,
        benchmark: found.get("benchmark").copied(),
        param: found.get("param").copied(),
        iteration: found.get("iteration").copied(),
        unit: found.get("unit").copied(),
        direction: found.get("direction").copied(),
        kernel: found.get("kernel").copied(),
        machine: found.get("machine").copied(),
        commit: found.get("commit").copied(),
    })
}

fn csv_error(e: csv::Error) -> IngestError {
    let line = e.position().map(csv::Position::line);
    let message = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("this row has {len} fields but the header has {expected_len}"),
        csv::ErrorKind::Utf8 { .. } => "the text is not valid UTF-8".to_owned(),
        _ => e.to_string(),
    };
    IngestError {
        line,
        ..IngestError::new(message)
    }
}

pub fn parse_csv(
    bytes: &[u8],
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<Vec<ParsedRun>, IngestError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .comment(Some(b'#'))
        .from_reader(strip_bom(bytes));
    let header = reader.headers().map_err(csv_error)?.clone();
    let cols = columns(&header)?;
    let mut builder = RunBuilder::within(budget);
    let mut record = csv::StringRecord::new();
    // Rows usually share their run: remember the last key fields and what they resolved to.
    let mut last_key: Option<([String; 4], usize)> = None;
    // The benchmark of that run: the metric of files without a metric column.
    let mut run_benchmark = String::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(csv_error(e)),
        }
        let line = record.position().map_or(0, csv::Position::line);
        // Fields are trimmed here rather than by the reader, which would copy every record.
        let get = |i: Option<usize>| {
            i.and_then(|i| record.get(i))
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let raw_key = [
            get(cols.benchmark),
            get(cols.machine),
            get(cols.kernel),
            get(cols.commit),
        ];
        let run = match &last_key {
            Some((raw, run))
                if raw
                    .iter()
                    .zip(raw_key.iter())
                    .all(|(a, b)| a == b.unwrap_or("")) =>
            {
                *run
            }
            _ => {
                let key = resolve_key(line, meta, raw_key[0], raw_key[1], raw_key[2], raw_key[3])?;
                run_benchmark = key.benchmark.as_str().to_owned();
                let run = builder.run(key, &meta.tags);
                last_key = Some((raw_key.map(|s| s.unwrap_or("").to_owned()), run));
                run
            }
        };
        let value_text = record.get(cols.value).unwrap_or("").trim();
        let value: f64 = value_text.parse().map_err(|_| IngestError {
            field: Some("value".into()),
            ..IngestError::at_line(line, format!("value '{value_text}' is not a number"))
        })?;
        let iteration = match get(cols.iteration) {
            None => None,
            Some(t) => {
                Some(
                    t.parse::<i64>()
                        .ok()
                        .filter(|i| *i >= 0)
                        .ok_or_else(|| IngestError {
                            field: Some("iteration".into()),
                            ..IngestError::at_line(
                                line,
                                format!("iteration '{t}' is not a whole number ≥ 0"),
                            )
                        })?,
                )
            }
        };
        let direction = match get(cols.direction) {
            None => None,
            Some(t) => Some(Direction::parse(t).ok_or_else(|| IngestError {
                field: Some("direction".into()),
                ..IngestError::at_line(
                    line,
                    format!("direction '{t}' is neither 'higher' nor 'lower'"),
                )
            })?),
        };
        // Without a metric column: mmtests' own name for a benchmark it knows (its samples
        // files are `kernel,param,iteration,value`), else the benchmark's name.
        let known = cols
            .metric
            .is_none()
            .then(|| super::mmtests::samples_metric(run_benchmark.as_str()))
            .flatten();
        let metric = match cols.metric {
            Some(i) => record.get(i).unwrap_or("").trim(),
            None => known.map_or(run_benchmark.as_str(), |(m, _)| m),
        };
        let direction = direction.or_else(|| known.map(|(_, d)| d));
        if metric.is_empty() {
            return Err(IngestError {
                field: Some("metric".into()),
                ..IngestError::at_line(line, "the metric is empty")
            });
        }
        builder.push(Row {
            line,
            run,
            metric,
            param: get(cols.param).unwrap_or(""),
            unit: get(cols.unit),
            direction,
            iteration,
            value,
        })?;
    }
    builder.finish()
}

/// A parameter may be written as a number or as text in JSON.
#[derive(Deserialize)]
#[serde(untagged)]
enum Param {
    Number(serde_json::Number),
    Text(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonSample {
    metric: String,
    #[serde(default)]
    param: Option<Param>,
    #[serde(default)]
    iteration: Option<i64>,
    value: f64,
    #[serde(default)]
    unit: Option<String>,
    #[serde(default)]
    direction: Option<Direction>,
    #[serde(default)]
    benchmark: Option<String>,
    #[serde(default)]
    machine: Option<String>,
    #[serde(default)]
    kernel: Option<String>,
    #[serde(default)]
    commit: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonDocument {
    #[serde(default)]
    benchmark: Option<String>,
    #[serde(default)]
    machine: Option<String>,
    #[serde(default)]
    kernel: Option<String>,
    #[serde(default)]
    commit: Option<String>,
    #[serde(default)]
    tags: BTreeMap<String, String>,
    samples: Vec<JsonSample>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum JsonInput {
    Document(JsonDocument),
    Samples(Vec<JsonSample>),
}

pub fn parse_json(
    bytes: &[u8],
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<Vec<ParsedRun>, IngestError> {
    let text = strip_bom(bytes);
    // Parse strictly first for good messages (untagged enums hide them), then pick the shape.
    let first = text.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let json_err =
        |e: serde_json::Error| IngestError::at_line(e.line() as u64, format!("invalid JSON: {e}"));
    let input = if first == Some(b'[') {
        JsonInput::Samples(serde_json::from_slice(text).map_err(json_err)?)
    } else {
        JsonInput::Document(serde_json::from_slice(text).map_err(json_err)?)
    };
    let (doc_meta, samples) = match input {
        JsonInput::Samples(samples) => (meta.clone(), samples),
        JsonInput::Document(doc) => {
            let mut m = meta.clone();
            for (name, v) in [
                ("benchmark", &doc.benchmark),
                ("machine", &doc.machine),
                ("kernel", &doc.kernel),
                ("commit", &doc.commit),
            ] {
                if let Some(v) = v {
                    m.set(name, v)?;
                }
            }
            if !doc.tags.is_empty() {
                // The document's tags are added to the upload's, replacing a key given in both.
                let mut tags = meta.tags.clone();
                for (k, v) in &doc.tags {
                    tags.push(super::tag(k, v)?);
                }
                m.tags = super::finish_tags(tags, true)?;
            }
            (m, doc.samples)
        }
    };
    let mut builder = RunBuilder::within(budget);
    for (i, s) in samples.iter().enumerate() {
        // JSON has no useful line per sample; name the sample by its index instead.
        let index = i as u64;
        let key = resolve_key(
            index,
            &doc_meta,
            s.benchmark.as_deref(),
            s.machine.as_deref(),
            s.kernel.as_deref(),
            s.commit.as_deref(),
        )
        .map_err(|e| IngestError {
            line: None,
            field: Some(format!("samples[{i}]")),
            ..e
        })?;
        let param = match &s.param {
            None => String::new(),
            Some(Param::Number(n)) => n.to_string(),
            Some(Param::Text(t)) => t.clone(),
        };
        if s.iteration.is_some_and(|i| i < 0) {
            return Err(IngestError::field(
                &format!("samples[{i}]"),
                "iteration must be ≥ 0",
            ));
        }
        let run = builder.run(key, &doc_meta.tags);
        builder
            .push(Row {
                line: index,
                run,
                metric: &s.metric,
                param: &param,
                unit: s.unit.as_deref(),
                direction: s.direction,
                iteration: s.iteration,
                value: s.value,
            })
            .map_err(|e| IngestError {
                line: None,
                field: Some(format!("samples[{i}]")),
                message: e.message.replace("line ", "sample "),
                ..e
            })?;
    }
    builder.finish()
}

#[cfg(test)]
mod tests {
    use crate::ingest::parse_file;

    /// Parses `input` and renders what came out, or the error, as text compared with `expect`.
    fn check(input: &str, expect: &str) {
        let got = match parse_file(input.as_bytes(), None, &crate::ingest::test_meta()) {
            Ok((format, runs)) => format!("{}\n{}", format.as_str(), crate::ingest::render(&runs)),
            Err(e) => format!("error: {e}\n"),
        };
        assert_eq!(got.trim(), expect.trim(), "\n--- got ---\n{got}");
    }

    #[test]
    fn csv_groups_rows_into_runs_and_series() {
        check(
            "benchmark,metric,param,iteration,value,unit,direction,kernel\n\
             netperf,tput,64,1,10.5,Mbps,higher,5.4.0\n\
             netperf,tput,64,0,11.5,Mbps,higher,5.4.0\n\
             netperf,tput,128,0,20,,,5.4.0\n\
             netperf,tput,64,0,9,,,5.5.0\n",
            r#"
csv
run netperf m1 5.4.0 None
  tput [64] Some("Mbps") higher [(0, 11.5), (1, 10.5)]
  tput [128] None higher [(0, 20.0)]
run netperf m1 5.5.0 None
  tput [64] None higher [(0, 9.0)]
"#,
        );
    }

    #[test]
    fn csv_errors_name_the_line() {
        check("benchmark,metric,value,colour\nb,m,1,red\n", "error: line 1: unknown column 'colour'; the columns are: benchmark, metric, param, iteration, value, unit, direction, kernel, machine, commit");
        check(
            "benchmark,metric,value\nb,m,1\nb,m,abc\n",
            "error: line 3: value 'abc' is not a number",
        );
        check(
            "benchmark,metric,value\nb,m,1,2\n",
            "error: line 2: this row has 4 fields but the header has 3",
        );
        check(
            "benchmark,metric,value\n",
            "error: no samples found: the file has no result rows Perfline can read",
        );
        check(
            "benchmark,metric,value\nb,m,1\nb,m,-1.7e308\n",
            "error: line 3: value -1.7e308 is outside the accepted range of ±1e15",
        );
        check(
            "benchmark,metric,value,unit\nb,m,1,Mbps\x1b[31m\n",
            "error: line 2: unit 'Mbps[31m' contains the control character U+001B",
        );
        check(
            &format!("benchmark,metric,value,unit\nb,m,1,{}\n", "u".repeat(33)),
            "error: line 2: unit 'uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu' is longer than 32 characters",
        );
        let many_kernels: String = (0..=crate::ingest::MAX_RUNS)
            .map(|k| format!("b,m,1,{k}\n"))
            .collect();
        check(
            &format!("benchmark,metric,value,kernel\n{many_kernels}"),
            "error: line 5002: more than 5000 runs (benchmark, machine, kernel, commit) in one upload; split it",
        );
        check(
            "benchmark,metric,iteration,value\nb,m,0,1\nb,m,0,2\n",
            "error: line 3: iteration 0 of metric m param '' is given twice (first on line 2)",
        );
        check(
            "benchmark,metric,value,direction\nb,m,1,sideways\n",
            "error: line 2: direction 'sideways' is neither 'higher' nor 'lower'",
        );
        check(
            "benchmark,metric,value\nb,m,inf\n",
            "error: line 2: value inf is not a finite number",
        );
        check("metric,value\nm,1\n", "error: line 2: no benchmark: give a benchmark column in the file or the benchmark field with the upload");
        check("   \n", "error: the file is empty");
        check("hello world\n", &format!("error: unrecognised format; Perfline knows: {} (a generic CSV starts with a header such as benchmark,metric,param,iteration,value)", crate::ingest::Format::known()));
    }

    #[test]
    fn json_document_and_bare_array() {
        check(
            r#"{"benchmark":"hackbench","kernel":"6.2.0","tags":{"mode":"process"},
                "samples":[{"metric":"time","param":16,"value":0.5,"direction":"lower"},
                           {"metric":"time","param":16,"value":0.6,"direction":"lower"}]}"#,
            r#"
json
run hackbench m1 6.2.0 None
  time [16] None lower [(0, 0.5), (1, 0.6)]
"#,
        );
        check(r#"[{"metric":"t","value":1,"benchmark":"b","colour":"red"}]"#, "error: line 1: invalid JSON: unknown field `colour`, expected one of `metric`, `param`, `iteration`, `value`, `unit`, `direction`, `benchmark`, `machine`, `kernel`, `commit` at line 1 column 49");
        check(r#"[{"metric":"t","value":1}]"#, "error: field samples[0]: no benchmark: give a benchmark column in the file or the benchmark field with the upload");
    }

    #[test]
    fn tags_parse_and_refuse_garbage() {
        let tags = crate::ingest::parse_tags("ip=ipv4, governor=performance").unwrap();
        assert_eq!(
            tags.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>(),
            vec!["governor=performance", "ip=ipv4"]
        );
        assert!(crate::ingest::parse_tags("novalue").is_err());
        assert!(crate::ingest::parse_tags("a=1,a=2").is_err());
        let long = format!("a={}", "v".repeat(201));
        assert!(crate::ingest::parse_tags(&long).is_err());
        assert!(crate::ingest::parse_tags("a=x\u{7}y").is_err());
        let at_most: Vec<String> = (0..app::label::MAX_TAGS)
            .map(|i| format!("k{i}=v"))
            .collect();
        assert_eq!(
            crate::ingest::parse_tags(&at_most.join(",")).unwrap().len(),
            app::label::MAX_TAGS
        );
        let too_many = format!("{},extra=1", at_most.join(","));
        let e = crate::ingest::parse_tags(&too_many).unwrap_err();
        assert_eq!(e.message, "65 tags given; at most 64 are accepted");
    }
}
