// SPDX-License-Identifier: GPL-3.0-or-later
//! LKP: raw program logs as the LKP harness records them (`netperf` and `hackbench` output with
//! timestamped command lines, `Instance:`/`Iterations:` markers and many concurrent instances),
//! with the numbers LKP derives from them; and LKP's `stats.json` and `matrix.json`.
//!
//! From raw logs the per-instance samples are kept (as the netperf and hackbench parsers read
//! them) and LKP's derived metrics are added, computed as lkp-tests computes them:
//! - netperf: `Throughput_Mbps` = mean over instances, `Throughput_total_Mbps` = sum over
//!   instances, the same for `ThroughputRecv` (UDP receive rows) and `ThroughputBoth`, and
//!   `workload` = ThroughputBoth_total × runtime × 10^6 / 8 / message size.
//! - hackbench: with kb = tasks × messages × bytes / 1024 (integer), `throughput` and
//!   `throughput_best` = kb / best time, `throughput_avg` = kb / mean time (rounded to 2 places),
//!   `throughput_worst` = kb / worst time.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use app::label::Direction;
use serde_json::Value;

use super::{
    hackbench, netperf, resolve_key, Budget, IngestError, ParsedRun, RunBuilder, UploadMeta,
};

/// Whether the text is an LKP raw log: timestamped command lines or LKP's markers.
pub fn detect_raw(text: &str) -> bool {
    text.lines().take(50).any(|l| {
        l.starts_with("Iterations: ")
            || l.starts_with("Instance: ")
            || (l.len() > 20
                && l.as_bytes()[4] == b'-'
                && l.as_bytes()[10] == b' '
                && l.as_bytes()[13] == b':'
                && l.get(20..)
                    .is_some_and(|c| c.starts_with("netperf ") || c.starts_with("hackbench ")))
    })
}

pub fn parse_raw(
    text: &str,
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<Vec<ParsedRun>, IngestError> {
    let is_netperf = text.lines().any(|l| {
        l.get(20..).is_some_and(|c| c.starts_with("netperf ")) || l.contains(" TEST from ")
    });
    let mut m = meta.clone();
    if is_netperf {
        if m.benchmark.is_none() {
            m.set("benchmark", "netperf")?;
        }
        let mut runs = netperf::parse(text, &m, budget)?;
        add_netperf_stats(text, &mut runs)?;
        Ok(runs)
    } else {
        if m.benchmark.is_none() {
            m.set("benchmark", "hackbench")?;
        }
        let mut runs = hackbench::parse(text, &m, budget)?;
        add_hackbench_stats(text, &mut runs)?;
        Ok(runs)
    }
}

fn derived(
    run: &mut ParsedRun,
    metric: &str,
    unit: &str,
    values: &[f64],
) -> Result<(), IngestError> {
    if values.iter().any(|v| !v.is_finite()) {
        return Err(IngestError::new(format!(
            "LKP {metric} is not a finite number"
        )));
    }
    let label = app::label::Metric::parse(metric)
        .map_err(|e| IngestError::new(format!("metric {metric} {e}")))?;
    run.series.push(super::ParsedSeries::derived(
        label,
        unit,
        Direction::Higher,
        values,
    ));
    Ok(())
}

/// The value of a command-line option such as `-l 300` in LKP's timestamped command lines.
fn option_value<'a>(text: &'a str, command: &str, option: &str) -> Option<&'a str> {
    text.lines()
        .filter(|l| l.get(20..).is_some_and(|c| c.starts_with(command)))
        .find_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words
                .iter()
                .position(|w| *w == option)
                .and_then(|p| words.get(p + 1).copied())
        })
}

fn add_netperf_stats(text: &str, runs: &mut [ParsedRun]) -> Result<(), IngestError> {
    let Some(run) = runs.first_mut() else {
        return Ok(());
    };
    // Instances per iteration: samples are in file order, and `Iterations:` markers split them.
    let iterations = text
        .lines()
        .filter(|l| l.starts_with("Iterations: "))
        .count()
        .max(1);
    let send: Vec<(String, f64)> = run
        .series
        .iter()
        .filter(|s| s.metric.as_str() == "Throughput" || s.metric.as_str() == "Throughput-send")
        .flat_map(|s| s.samples.iter().map(move |(_, v)| (s.param.clone(), *v)))
        .collect();
    let recv: Vec<f64> = run
        .series
        .iter()
        .filter(|s| s.metric.as_str() == "Throughput-recv")
        .flat_map(|s| s.samples.iter().map(|(_, v)| *v))
        .collect();
    if send.is_empty() {
        return Err(IngestError::new(
            "LKP netperf log without any netperf result",
        ));
    }
    if !recv.is_empty() && recv.len() != send.len() {
        return Err(IngestError::new(format!(
            "LKP netperf log with {} send results but {} receive results",
            send.len(),
            recv.len()
        )));
    }
    if !send.len().is_multiple_of(iterations) {
        return Err(IngestError::new(format!(
            "LKP netperf log with {} results in {iterations} iterations: not the same number in each",
            send.len()
        )));
    }
    let per_iter = send.len() / iterations;
    let runtime: f64 = option_value(text, "netperf ", "-l")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    let (
        mut tput,
        mut tput_recv,
        mut both,
        mut total,
        mut total_recv,
        mut total_both,
        mut workload,
    ) = (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for it in 0..iterations {
        let range = it * per_iter..((it + 1) * per_iter).min(send.len());
        let s: Vec<f64> = send[range.clone()].iter().map(|(_, v)| *v).collect();
        let r: Vec<f64> = if recv.is_empty() {
            vec![0.0; s.len()]
        } else {
            recv[range.clone()].to_vec() // same length as send, checked above
        };
        let n = s.len() as f64;
        let (ss, rs) = (s.iter().sum::<f64>(), r.iter().sum::<f64>());
        tput.push(ss / n);
        tput_recv.push(rs / n);
        both.push(ss / n + rs / n);
        total.push(ss);
        total_recv.push(rs);
        total_both.push(ss + rs);
        let msg: f64 = send[range.start].0.parse().unwrap_or(0.0);
        if runtime > 0.0 && msg > 0.0 {
            workload.push((ss + rs) * runtime * 1e6 / 8.0 / msg);
        }
    }
    derived(run, "Throughput_Mbps", "Mbps", &tput)?;
    derived(run, "ThroughputRecv_Mbps", "Mbps", &tput_recv)?;
    derived(run, "ThroughputBoth_Mbps", "Mbps", &both)?;
    derived(run, "Throughput_total_Mbps", "Mbps", &total)?;
    derived(run, "ThroughputRecv_total_Mbps", "Mbps", &total_recv)?;
    derived(run, "ThroughputBoth_total_Mbps", "Mbps", &total_both)?;
    if !workload.is_empty() {
        derived(run, "workload", "", &workload)?;
    }
    run.facts
        .push(("lkp_instances".into(), per_iter.to_string()));
    run.facts
        .push(("lkp_iterations".into(), iterations.to_string()));
    Ok(())
}

fn add_hackbench_stats(text: &str, runs: &mut [ParsedRun]) -> Result<(), IngestError> {
    let Some(run) = runs.first_mut() else {
        return Ok(());
    };
    let (mut tasks, mut messages, mut bytes) = (0u64, 0u64, 0u64);
    for l in text.lines() {
        if l.starts_with("Running in ") {
            if let Some(t) = l
                .split("(== ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .and_then(|t| t.parse().ok())
            {
                tasks = t;
            }
        } else if let Some(rest) = l
            .strip_prefix("Each sender will pass ")
            .or_else(|| l.strip_prefix("Each sender passed "))
        {
            let w: Vec<&str> = rest.split_whitespace().collect();
            messages = w.first().and_then(|x| x.parse().ok()).unwrap_or(0);
            bytes = w
                .iter()
                .position(|x| *x == "of")
                .and_then(|p| w.get(p + 1))
                .and_then(|x| x.parse().ok())
                .unwrap_or(0);
        }
    }
    let times: Vec<f64> = run
        .series
        .iter()
        .filter(|s| s.metric.as_str() == "time")
        .flat_map(|s| s.samples.iter().map(|(_, v)| *v))
        .collect();
    if times.is_empty() || tasks == 0 || messages == 0 {
        return Err(IngestError::new(
            "LKP hackbench log without tasks, messages or times",
        ));
    }
    // LKP multiplies Ruby integers, which never overflow; u64 would (the fuzzer found it).
    let kb = u128::from(tasks)
        .checked_mul(u128::from(messages))
        .and_then(|x| x.checked_mul(u128::from(bytes)))
        .map(|x| (x >> 10) as f64)
        .ok_or_else(|| {
            IngestError::new("LKP hackbench log: tasks × messages × bytes is too large")
        })?;
    let best = times.iter().copied().fold(f64::INFINITY, f64::min);
    let worst = times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let avg = times.iter().sum::<f64>() / times.len() as f64;
    derived(run, "throughput", "KB/s", &[kb / best])?;
    derived(run, "throughput_best", "KB/s", &[kb / best])?;
    derived(
        run,
        "throughput_avg",
        "KB/s",
        &[(kb / avg * 100.0).round() / 100.0],
    )?;
    derived(run, "throughput_worst", "KB/s", &[kb / worst])?;
    Ok(())
}

/// Whether a JSON document is an LKP `stats.json` (flat numbers) or `matrix.json` (arrays).
pub fn detect_json(v: &Value) -> Option<super::Format> {
    let obj = v.as_object()?;
    if obj.contains_key("samples") || obj.is_empty() {
        return None;
    }
    // LKP writes a few string values (a kernel's name, a state) among the numbers: they are
    // skipped, but they do not make the document something else.
    let scalar = |x: &Value| x.is_number() || x.is_string() || x.is_null();
    let any_number =
        |x: &Value| x.is_number() || x.as_array().is_some_and(|a| a.iter().any(Value::is_number));
    if obj.contains_key("stats_source")
        || obj
            .values()
            .all(|x| x.as_array().is_some_and(|a| a.iter().all(scalar)))
    {
        return Some(super::Format::LkpMatrix);
    }
    if obj.values().all(|x| x.is_number() || x.is_string())
        && obj.values().any(any_number)
        && obj.keys().any(|k| k.contains('.'))
    {
        return Some(super::Format::LkpStats);
    }
    None
}

/// An LKP document's top-level object with its keys in the file's order (lkp-tests reads it
/// with Ruby's ordered Hash, and its comparison breaks ties by that order): a key given twice
/// keeps its first place and takes its last value. Keys borrow the upload's bytes where they
/// hold no escapes (a job's 5,000 keys are not copied).
struct Document<'a> {
    entries: Vec<(Cow<'a, str>, Value)>,
}

impl Document<'_> {
    /// A key's value (a linear search: for the one or two keys a parser asks for by name).
    fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    /// Folds a key given twice into its first place with its last value.
    fn merge_repeated_keys(&mut self) {
        let mut first: HashMap<&str, usize, foldhash::fast::RandomState> =
            HashMap::with_capacity_and_hasher(self.entries.len(), Default::default());
        let mut repeated: Vec<(usize, usize)> = Vec::new();
        for (i, (k, _)) in self.entries.iter().enumerate() {
            if let Some(&f) = first.get(k.as_ref()) {
                repeated.push((f, i));
            } else {
                first.insert(k, i);
            }
        }
        if repeated.is_empty() {
            return;
        }
        for &(f, i) in &repeated {
            self.entries[f].1 = std::mem::take(&mut self.entries[i].1);
        }
        let gone: std::collections::HashSet<usize> = repeated.iter().map(|&(_, i)| i).collect();
        let mut i = 0;
        self.entries.retain(|_| {
            i += 1;
            !gone.contains(&(i - 1))
        });
    }
}

/// A key of the document, borrowed from the input where it can be.
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(Visit)
    }
}

impl<'de> serde::Deserialize<'de> for Document<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Document<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an LKP stats document (a JSON object)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Document<'de>, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some((Key(k), v)) = map.next_entry::<Key<'de>, Value>()? {
                    entries.push((k, v));
                }
                let mut doc = Document { entries };
                doc.merge_repeated_keys();
                Ok(doc)
            }
        }
        d.deserialize_map(Visit)
    }
}

fn json(bytes: &[u8]) -> Result<Document<'_>, IngestError> {
    serde_json::from_slice(super::strip_bom(bytes)).map_err(|e| {
        if e.is_data() {
            IngestError::new("an LKP stats document is a JSON object")
        } else {
            IngestError::at_line(e.line() as u64, format!("invalid JSON: {e}"))
        }
    })
}

/// Whether LKP wrote `v` as an integer (`3`, not `3.0`): lkp-tests' comparison tells them apart.
fn is_integer(v: &Value) -> bool {
    v.as_number().is_some_and(|n| n.is_i64() || n.is_u64())
}

/// The benchmark of LKP keys (`netperf.Throughput_Mbps` → `netperf`), if the upload lacks one:
/// the most common prefix that is one of lkp-tests' test programs (a real job's keys are mostly
/// its monitors': thousands of `perf-profile.*`, `sched_debug.*`, `proc-vmstat.*`), else the most
/// common prefix.
fn meta_with_benchmark(meta: &UploadMeta, keys: &[&str]) -> Result<UploadMeta, IngestError> {
    let mut m = meta.clone();
    if m.benchmark.is_none() {
        let mut prefixes: BTreeMap<&str, usize> = BTreeMap::new();
        for k in keys {
            if let Some((p, _)) = k.split_once('.') {
                *prefixes.entry(p).or_default() += 1;
            }
        }
        let most = |test_only: bool| {
            prefixes
                .iter()
                .filter(|(p, _)| !test_only || lkp::programs::is_test_program(p))
                .max_by_key(|(_, n)| **n)
                .map(|(p, _)| *p)
        };
        if let Some(p) = most(true).or_else(|| most(false)) {
            m.set("benchmark", p)?;
        }
    }
    Ok(m)
}

/// A failure key (`dmesg.*`, `kmsg.*`, `last_state.*`: how often a warning or failure was seen
/// in the run) is stored as such: unit `occurrences`, lower is better; LKP's text then shows it
/// as `fail:runs`. One of LKP's KPIs gets the direction lkp-tests gives it (`kpi`); any other
/// key's is unknown (a `proc-vmstat` counter is neither better nor worse when it moves).
fn failure_unit(key: &str) -> (Option<&'static str>, Option<Direction>) {
    if app::compare::is_failure_key(key) {
        (Some("occurrences"), Some(Direction::Lower))
    } else {
        (
            None,
            Some(super::known::kpi_direction(key).unwrap_or(Direction::Unknown)),
        )
    }
}

/// `stats.json`: `{"netperf.Throughput_Mbps": 2497.1, ...}` → one run, one sample per key.
pub fn parse_stats(
    bytes: &[u8],
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<Vec<ParsedRun>, IngestError> {
    let obj = json(bytes)?;
    let keys: Vec<&str> = obj.entries.iter().map(|(k, _)| k.as_ref()).collect();
    let m = meta_with_benchmark(meta, &keys)?;
    let mut b = RunBuilder::within(budget);
    let run = b.run(resolve_key(1, &m, None, None, None, None)?, &meta.tags);
    let mut skipped = Vec::new();
    for (k, v) in &obj.entries {
        let (metric, value) = match takeable(k, v) {
            Ok(taken) => taken,
            Err(why) => {
                skipped.push(why);
                continue;
            }
        };
        let (unit, direction) = failure_unit(k);
        b.push_unique(
            run,
            metric,
            unit,
            direction.unwrap_or_default(),
            value,
            is_integer(v),
        )
        .map_err(|e| IngestError {
            field: Some(k.to_string()),
            ..e
        })?;
    }
    if skipped.len() == obj.len() {
        return Err(nothing_to_store(&skipped));
    }
    let mut runs = b.finish()?;
    if let Some(first) = runs.first_mut() {
        first.skipped = skipped;
    }
    Ok(runs)
}

/// The refusal of an LKP document none of whose keys could be stored.
fn nothing_to_store(skipped: &[String]) -> IngestError {
    let shown: Vec<&str> = skipped.iter().take(5).map(String::as_str).collect();
    IngestError::new(format!(
        "no key of this LKP document can be stored: {}{}",
        shown.join("; "),
        if skipped.len() > shown.len() {
            "; ..."
        } else {
            ""
        }
    ))
}

/// The value of key `k`, or why the job is stored without it: a string (LKP writes a few), a
/// value that is not a finite number within bounds, or a key Perfline cannot take as a metric.
fn takeable(k: &str, v: &Value) -> Result<(app::label::Metric, f64), String> {
    let key = || super::shorten(k);
    let metric = app::label::Metric::parse(k).map_err(|e| format!("{}: the name {e}", key()))?;
    match v {
        Value::String(_) => Err(format!("{}: a string, not a number", key())),
        Value::Number(n) => {
            let value = n
                .as_f64()
                .ok_or_else(|| format!("{}: not a number Perfline can read", key()))?;
            let value = app::label::check_value(value).map_err(|e| format!("{}: {e}", key()))?;
            Ok((metric, value))
        }
        _ => Err(format!("{}: not a number", key())),
    }
}

/// `matrix.json`: `{"stats_source": [...], "<key>": [one value per run]}` → one run per column.
/// One pass over the keys, each cell pushed into its column's run: the work is the cells the
/// document holds, however long its longest key (`columns × keys` visits were minutes of a
/// 5 MB document), and the columns count against the upload's runs before any is made.
pub fn parse_matrix(
    bytes: &[u8],
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<Vec<ParsedRun>, IngestError> {
    let obj = json(bytes)?;
    let sources: Vec<String> = obj
        .get("stats_source")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default();
    let entries: Vec<(&str, &Value)> = obj
        .entries
        .iter()
        .map(|(k, v)| (k.as_ref(), v))
        .filter(|(k, _)| *k != "stats_source")
        .collect();
    let columns = entries
        .iter()
        .filter_map(|(_, v)| v.as_array().map(Vec::len))
        .max()
        .unwrap_or(0);
    if columns == 0 {
        return Err(IngestError::new(
            "LKP matrix.json without any column of values",
        ));
    }
    let keys: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
    let m = meta_with_benchmark(meta, &keys)?;
    let takeable_cell = |(k, v): &(&str, &Value)| {
        v.as_array()
            .is_some_and(|a| a.iter().any(|v| takeable(k, v).is_ok()))
    };
    if !entries.iter().any(takeable_cell) {
        let all: Vec<String> = keys
            .iter()
            .map(|k| format!("{}: no number Perfline can take", super::shorten(k)))
            .collect();
        return Err(nothing_to_store(&all));
    }
    let mut b = RunBuilder::within(budget);
    if columns > b.runs_left() {
        return Err(IngestError::new(format!(
            "a matrix of {columns} columns is {columns} runs; at most {} runs in one upload; split it",
            super::MAX_RUNS
        )));
    }
    let key = resolve_key(1, &m, None, None, None, None)?;
    // Column `col` is run `col`.
    for _ in 0..columns {
        b.new_run(key.clone(), &meta.tags);
    }
    // Keys the job is stored without, each said once however many columns it spoils (the
    // reason of its first column).
    let mut skipped: BTreeMap<&str, String> = BTreeMap::new();
    for (ki, (k, v)) in entries.iter().enumerate() {
        if ki % 4096 == 4095 && super::cancel::requested() {
            return Err(super::cancelled());
        }
        let Some(arr) = v.as_array() else {
            skipped
                .entry(k)
                .or_insert_with(|| format!("{}: not an array of values", super::shorten(k)));
            continue;
        };
        // The key's unit and direction, once for all its columns.
        let (unit, direction) = failure_unit(k);
        for (col, v) in arr.iter().enumerate() {
            if v.is_null() {
                continue;
            }
            let (metric, value) = match takeable(k, v) {
                Ok(taken) => taken,
                Err(why) => {
                    skipped.entry(k).or_insert(why);
                    continue;
                }
            };
            b.push_unique(
                col,
                metric,
                unit,
                direction.unwrap_or_default(),
                value,
                is_integer(v),
            )
            .map_err(|e| IngestError {
                field: Some(format!("{k}[{col}]")),
                ..e
            })?;
        }
    }
    // A column without a value Perfline can take is no run: the document is refused, as each
    // column on its own would be.
    if let Some(col) = (0..columns).find(|&col| b.run_is_empty(col)) {
        return Err(IngestError::field(
            &format!("column {col}"),
            "no samples found: the file has no result rows Perfline can read",
        ));
    }
    let mut out = b.finish()?;
    for (col, r) in out.iter_mut().enumerate() {
        r.facts.push(("lkp_column".into(), col.to_string()));
        if let Some(src) = sources.get(col) {
            r.facts.push(("stats_source".into(), src.clone()));
        }
    }
    if let Some(first) = out.first_mut() {
        first.skipped = skipped.into_values().collect();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::ingest::{parse_file, test_meta, Format};

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/lkp-raw")
                .join(name),
        )
        .unwrap()
    }

    /// Checks every number of `<name>.expected.yaml` (what LKP's own parser printed) against the
    /// derived series, and that the per-instance samples are kept.
    fn check(name: &str, instance_metric: &str, instances: usize) {
        let (format, runs) =
            parse_file(&fixture(&format!("{name}.log")), None, &test_meta()).unwrap();
        assert_eq!(format, Format::LkpRaw);
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        let kept: usize = run
            .series
            .iter()
            .filter(|s| s.metric.as_str() == instance_metric)
            .map(|s| s.samples.len())
            .sum();
        assert_eq!(
            kept, instances,
            "{name}: per-instance {instance_metric} samples"
        );
        let expected = String::from_utf8(fixture(&format!("{name}.expected.yaml"))).unwrap();
        let mut checked = 0;
        for line in expected.lines().filter(|l| !l.trim().is_empty()) {
            let (key, value) = line.split_once(':').unwrap();
            let want: f64 = value.trim().parse().unwrap();
            let series = run
                .series
                .iter()
                .find(|s| s.metric.as_str() == key)
                .unwrap_or_else(|| panic!("{name}: no series {key}"));
            let got = series.samples[0].1;
            let tolerance = 1e-12 * want.abs().max(1.0);
            assert!(
                (got - want).abs() <= tolerance,
                "{name}: {key} = {got}, LKP says {want}"
            );
            checked += 1;
        }
        assert!(checked >= 4, "{name}: checked {checked} numbers");
    }

    #[test]
    fn netperf_udp_recv_equals_lkp() {
        check("netperf-udp-recv", "Throughput-send", 16);
    }

    #[test]
    fn netperf_sctp_64_instances_equals_lkp() {
        check("netperf-sctp-64x", "Throughput", 64);
    }

    #[test]
    fn hackbench_equals_lkp() {
        check("hackbench", "time", 8);
    }

    /// Found by `scripts/fuzz`: a message count near 2^62 overflowed tasks × messages × bytes.
    #[test]
    fn huge_hackbench_counts_are_an_error_not_a_panic() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/lkp-raw/fuzz-hackbench-kb-overflow.log");
        let bytes = std::fs::read(path).unwrap();
        // Its byte count is mangled (so 0): the product fits in u128 and the log parses.
        let (_, runs) = parse_file(&bytes, Some(Format::LkpRaw), &test_meta()).unwrap();
        assert_eq!(runs[0].series[0].metric.as_str(), "time");
        // Counts whose product does not fit even in u128 are refused.
        let huge = "Running in process mode with 256 groups using 40 file descriptors each (== 18446744073709551615 tasks)\n\
                    Each sender will pass 18446744073709551615 messages of 18446744073709551615 bytes\n\
                    Time: 9.541\n";
        let err = parse_file(huge.as_bytes(), Some(Format::LkpRaw), &test_meta()).unwrap_err();
        assert!(err.to_string().contains("too large"), "{err}");
    }

    #[test]
    fn stats_json_is_one_run() {
        let text = br#"{"netperf.Throughput_Mbps": 2497.1, "netperf.Throughput_total_Mbps": 79924, "netperf.workload": 5.488e8}"#;
        let (format, runs) = parse_file(text, None, &test_meta()).unwrap();
        assert_eq!(format, Format::LkpStats);
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].key.benchmark.as_str(), "netperf");
        assert_eq!(runs[0].series.len(), 3);
        assert_eq!(runs[0].series[0].metric.as_str(), "netperf.Throughput_Mbps");
        assert_eq!(runs[0].series[0].samples, vec![(0, 2497.1)]);
    }

    /// A real job's keys are mostly its monitors': the benchmark is the test program's prefix,
    /// its keys keep the file's order, and only KPIs and failure counts have a direction.
    #[test]
    fn a_real_jobs_benchmark_order_and_directions() {
        let mut text = String::from("{");
        for i in 0..20 {
            text.push_str(&format!("\"perf-profile.children.cycles-pp.f{i}\": 1.5, "));
        }
        text.push_str(
            r#""netperf.Throughput_Mbps": 2497, "proc-vmstat.nr_dirty": 12.0, "dmesg.BUG:x": 1}"#,
        );
        let (_, runs) = parse_file(text.as_bytes(), None, &test_meta()).unwrap();
        let run = &runs[0];
        assert_eq!(run.key.benchmark.as_str(), "netperf");
        let names: Vec<&str> = run.series.iter().map(|s| s.metric.as_str()).collect();
        assert_eq!(names[0], "perf-profile.children.cycles-pp.f0");
        assert_eq!(
            names[20..],
            [
                "netperf.Throughput_Mbps",
                "proc-vmstat.nr_dirty",
                "dmesg.BUG:x"
            ]
        );
        use app::label::Direction;
        let kind = |i: usize| (run.series[i].direction, run.series[i].integer);
        assert_eq!(kind(20), (Direction::Higher, Some(true)));
        assert_eq!(kind(21), (Direction::Unknown, Some(false)));
        assert_eq!(kind(22), (Direction::Lower, Some(true)));
        assert_eq!(kind(0), (Direction::Unknown, Some(false)));
    }

    /// A key given twice keeps its first place and takes its last value, as Ruby's Hash does.
    #[test]
    fn a_repeated_key_keeps_its_place_and_its_last_value() {
        let text =
            br#"{"netperf.a": 1, "netperf.b": 2, "netperf.a": 3, "netperf.c": 4, "netperf.b": 5}"#;
        let (_, runs) = parse_file(text, Some(Format::LkpStats), &test_meta()).unwrap();
        let got: Vec<(&str, f64)> = runs[0]
            .series
            .iter()
            .map(|s| (s.metric.as_str(), s.samples[0].1))
            .collect();
        assert_eq!(
            got,
            [("netperf.a", 3.0), ("netperf.b", 5.0), ("netperf.c", 4.0)]
        );
        // Keys with escapes (not borrowed from the upload) are the same keys.
        let text = br#"{"netperf.\u0061": 1, "netperf.a": 2}"#;
        let (_, runs) = parse_file(text, Some(Format::LkpStats), &test_meta()).unwrap();
        assert_eq!(runs[0].series.len(), 1);
        assert_eq!(runs[0].series[0].samples, vec![(0, 2.0)]);
    }

    /// A matrix's parse polls the request's cancellation as it walks the keys (a request
    /// gone is not parsed on).
    #[test]
    fn a_cancelled_matrix_parse_stops() {
        let keys: String = (0..10_000).map(|i| format!(",\"k{i}.x\":[1]")).collect();
        let doc = format!("{{\"netperf.Throughput_Mbps\":[1,2]{keys}}}");
        let parse = || parse_file(doc.as_bytes(), Some(Format::LkpMatrix), &test_meta());
        assert!(parse().is_ok());
        let gone = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let e = crate::ingest::cancel::with(gone, parse).unwrap_err();
        assert_eq!(e.message, "the request was cancelled");
    }

    /// Every column is a run of the upload, counted as one: no column is parsed past the
    /// upload's runs, and a column with nothing to store refuses the document.
    #[test]
    fn a_matrixs_columns_are_the_uploads_runs() {
        let columns = |n: usize| {
            let ones = vec!["1"; n].join(",");
            format!("{{\"netperf.Throughput_Mbps\":[{ones}]}}")
        };
        let (_, runs) = parse_file(
            columns(5_000).as_bytes(),
            Some(Format::LkpMatrix),
            &test_meta(),
        )
        .unwrap();
        assert_eq!(runs.len(), 5_000);
        assert_eq!(runs[4_999].facts[0], ("lkp_column".into(), "4999".into()));
        let e = parse_file(
            columns(5_001).as_bytes(),
            Some(Format::LkpMatrix),
            &test_meta(),
        )
        .unwrap_err();
        assert!(
            e.message
                .contains("5001 columns is 5001 runs; at most 5000"),
            "{e}"
        );
        let gap = br#"{"a.x": [1, null, 3], "b.y": [1]}"#;
        let e = parse_file(gap, Some(Format::LkpMatrix), &test_meta()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("column 1"), "{e}");
    }

    #[test]
    fn matrix_json_is_one_run_per_column() {
        let text = br#"{"stats_source": ["/result/a/0/stats.json", "/result/a/1/stats.json"],
                        "netperf.Throughput_Mbps": [2497.1, 2501.3], "netperf.workload": [5.4e8, null]}"#;
        let (format, runs) = parse_file(text, None, &test_meta()).unwrap();
        assert_eq!(format, Format::LkpMatrix);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[1].series.len(), 1, "a null cell is no sample");
        assert_eq!(runs[1].series[0].samples, vec![(0, 2501.3)]);
        assert!(runs[1]
            .facts
            .contains(&("stats_source".into(), "/result/a/1/stats.json".into())));
        // A key it cannot take is left out (issue 28: the job is never refused for it) and
        // said; a document with nothing it can take is still refused.
        let some =
            br#"{"stats_source": ["x"], "netperf.Throughput_Mbps": [1.5], "kernel": ["fast"]}"#;
        let (_, runs) = parse_file(some, Some(Format::LkpMatrix), &test_meta()).unwrap();
        assert_eq!(runs[0].series.len(), 1);
        assert_eq!(
            runs[0].skipped,
            vec!["kernel: a string, not a number".to_owned()]
        );
        let bad = br#"{"stats_source": ["x"], "netperf.Throughput_Mbps": ["fast"]}"#;
        let e = parse_file(bad, Some(Format::LkpMatrix), &test_meta()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no key of this LKP document can be stored: netperf.Throughput_Mbps: no number Perfline can take"
        );
    }
}
