// SPDX-License-Identifier: GPL-3.0-or-later
//! What every parser produces and how: rows fed to a [`RunBuilder`], which groups them into runs
//! (one per benchmark, machine, kernel and commit) and series (one per metric and param), and
//! checks what no single row can (duplicate iterations, a unit or direction that changes).

use std::collections::HashMap;

use super::*;
use app::label::{check_value, Direction, Label, Metric, TagValue, Unit};

/// Which run a row belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunKey {
    pub benchmark: Label,
    pub machine: Label,
    pub kernel: Label,
    pub commit: Option<CommitSha>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParsedSeries {
    pub metric: Metric,
    pub param: String,
    pub unit: Option<Unit>,
    pub direction: Direction,
    /// `(iteration, value)`, sorted by iteration once the builder finishes.
    pub samples: Vec<(i64, f64)>,
    /// Whether the file wrote every sample as an integer (`3`, not `3.0`), where its format
    /// tells (LKP's JSON: lkp-tests' comparison treats Integers and Floats apart); `None`
    /// where it does not.
    pub integer: Option<bool>,
    /// The line each sample came from, for error messages.
    lines: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParsedRun {
    pub key: RunKey,
    pub tags: Tags,
    /// Facts the file states about the run (test type, thread count, confidence...).
    pub facts: Vec<(String, String)>,
    pub series: Vec<ParsedSeries>,
    /// What the file held that Perfline could not take and left out, and why (`key: reason`):
    /// an LKP job is stored without a key it cannot take rather than refused.
    pub skipped: Vec<String>,
    /// A bisect mark of the run's own, over the upload's: set by Perfline after parsing (a
    /// mail's plots: good at the base, bad at the tested commit), never by a parser.
    pub mark: Option<app::trend::Mark>,
}

impl ParsedSeries {
    /// A series computed from others (no source lines), one sample per iteration.
    pub fn derived(
        metric: Metric,
        unit: &str,
        direction: Direction,
        values: &[f64],
    ) -> ParsedSeries {
        ParsedSeries {
            metric,
            param: String::new(),
            unit: Unit::parse(unit).ok(),
            direction,
            samples: values
                .iter()
                .enumerate()
                .map(|(i, v)| (i as i64, *v))
                .collect(),
            integer: None,
            lines: Vec::new(),
        }
    }
}

impl ParsedRun {
    pub fn sample_count(&self) -> usize {
        self.series.iter().map(|s| s.samples.len()).sum()
    }
}

/// One row of any format, before grouping. `run` comes from [`RunBuilder::run`].
pub struct Row<'a> {
    pub line: u64,
    pub run: usize,
    pub metric: &'a str,
    pub param: &'a str,
    pub unit: Option<&'a str>,
    pub direction: Option<Direction>,
    pub iteration: Option<i64>,
    pub value: f64,
}

/// Groups rows into runs and series, within the upload's [`Budget`].
#[derive(Default)]
pub struct RunBuilder {
    runs: Vec<ParsedRun>,
    /// The upload's budget, and the runs, series and samples its files before this one made.
    budget: Budget,
    runs_before: usize,
    series_before: usize,
    samples_before: usize,
    /// Series and samples so far, over the upload's files (bounded by [`MAX_SERIES`],
    /// [`MAX_SAMPLES`]): those before this one's and this one's.
    series_count: usize,
    sample_count: usize,
    /// A run that would exceed [`MAX_RUNS`], reported by the next `push` or `finish`.
    too_many_runs: bool,
    run_index: HashMap<RunKey, usize>,
    /// (Seeded per process: its keys come from the client, bounded by [`MAX_SERIES`].)
    series_index: HashMap<(usize, String, String), usize, foldhash::fast::RandomState>,
    /// The last run and series a row went to: rows usually come grouped.
    last: Option<(usize, usize)>,
}

impl RunBuilder {
    /// A builder for one file of an upload: what it makes counts against `budget`, after
    /// what the upload's files before it made (added to it when it [finishes](Self::finish)).
    pub fn within(budget: &Budget) -> RunBuilder {
        let (runs, series, samples) = budget.spent();
        RunBuilder {
            budget: budget.clone(),
            runs_before: runs,
            series_before: series,
            samples_before: samples,
            series_count: series,
            sample_count: samples,
            ..RunBuilder::default()
        }
    }

    /// The index of the run with this key, created (with these tags) on first use.
    pub fn run(&mut self, key: RunKey, tags: &[(Label, TagValue)]) -> usize {
        if let Some(i) = self.run_index.get(&key) {
            return *i;
        }
        let i = self.new_run(key.clone(), tags);
        self.run_index.insert(key, i);
        i
    }

    /// A run of its own, whatever other runs have the same key (an LKP matrix's columns:
    /// one run each, told apart by their facts); its rows go in with [`Self::push_unique`].
    pub fn new_run(&mut self, key: RunKey, tags: &[(Label, TagValue)]) -> usize {
        let i = self.runs.len();
        if self.runs_before + i >= MAX_RUNS {
            // Rows of it are refused by `push`; keep the index valid meanwhile.
            self.too_many_runs = true;
        }
        self.runs.push(ParsedRun {
            facts: Vec::new(),
            key,
            tags: tags.to_vec(),
            series: Vec::new(),
            skipped: Vec::new(),
            mark: None,
        });
        i
    }

    /// Whether run `run` has no sample yet.
    pub fn run_is_empty(&self, run: usize) -> bool {
        self.runs[run].series.iter().all(|s| s.samples.is_empty())
    }

    /// How many more runs the upload may hold.
    pub fn runs_left(&self) -> usize {
        MAX_RUNS.saturating_sub(self.runs_before + self.runs.len())
    }

    /// Counts one more sample against the upload's bounds.
    fn count_sample(&mut self, line: Option<u64>) -> Result<(), IngestError> {
        if self.too_many_runs {
            return Err(too_many_runs(line));
        }
        self.sample_count += 1;
        if self.sample_count.is_multiple_of(65_536) && cancel::requested() {
            return Err(cancelled());
        }
        if self.sample_count > MAX_SAMPLES {
            return Err(IngestError {
                line,
                ..IngestError::new(format!(
                    "more than {MAX_SAMPLES} samples in one upload; split it"
                ))
            });
        }
        Ok(())
    }

    /// Counts one more series against the upload's bound.
    fn count_series(&mut self, line: Option<u64>) -> Result<(), IngestError> {
        self.series_count += 1;
        if self.series_count > MAX_SERIES {
            return Err(IngestError {
                line,
                ..IngestError::new(format!(
                    "more than {MAX_SERIES} series (metric and param) in one upload; split it"
                ))
            });
        }
        Ok(())
    }

    /// The one sample of a series no other row of run `run` names: an LKP document gives each
    /// key once, so its 5,000 keys skip `push`'s lookup and line bookkeeping. (A series pushed
    /// here must not also get rows through `push`.)
    pub fn push_unique(
        &mut self,
        run: usize,
        metric: Metric,
        unit: Option<&str>,
        direction: Direction,
        value: f64,
        integer: bool,
    ) -> Result<(), IngestError> {
        check_value(value).map_err(|e| IngestError::field("value", e))?;
        self.count_sample(None)?;
        self.count_series(None)?;
        let unit = unit
            .map(|u| {
                Unit::parse(u)
                    .map_err(|e| IngestError::field("unit", format!("unit '{}' {e}", shorten(u))))
            })
            .transpose()?;
        self.runs[run].series.push(ParsedSeries {
            metric,
            param: String::new(),
            unit,
            direction,
            samples: vec![(0, value)],
            integer: Some(integer),
            lines: Vec::new(),
        });
        Ok(())
    }

    pub fn push(&mut self, row: Row<'_>) -> Result<(), IngestError> {
        check_value(row.value).map_err(|e| IngestError {
            field: Some("value".into()),
            ..IngestError::at_line(row.line, e)
        })?;
        self.count_sample(Some(row.line))?;
        let run = row.run;
        let series = match &self.last {
            Some((r, s))
                if *r == run
                    && self.runs[run].series[*s].metric.as_str() == row.metric
                    && self.runs[run].series[*s].param == row.param =>
            {
                *s
            }
            _ => {
                let key = (run, row.metric.to_owned(), row.param.to_owned());
                let s = match self.series_index.get(&key) {
                    Some(s) => *s,
                    None => {
                        let metric = Metric::parse(row.metric).map_err(|e| {
                            IngestError::at_line(row.line, format!("metric '{}' {e}", row.metric))
                        })?;
                        // The same rule as a trend query's `param`.
                        let param = app::label::Param::parse(row.param)
                            .map_err(|e| IngestError::at_line(row.line, format!("param {e}")))?;
                        let unit = row
                            .unit
                            .map(|u| {
                                Unit::parse(u).map_err(|e| IngestError {
                                    field: Some("unit".into()),
                                    ..IngestError::at_line(
                                        row.line,
                                        format!("unit '{}' {e}", shorten(u)),
                                    )
                                })
                            })
                            .transpose()?;
                        self.count_series(Some(row.line))?;
                        // Not stated: known (LKP's KPIs, mmtests' YAML, the name), else none.
                        let direction = row.direction.unwrap_or_else(|| {
                            known::direction(self.runs[run].key.benchmark.as_str(), metric.as_str())
                                .unwrap_or(Direction::Unknown)
                        });
                        let series = &mut self.runs[run].series;
                        series.push(ParsedSeries {
                            metric,
                            param: param.into(),
                            unit,
                            direction,
                            samples: Vec::new(),
                            integer: None,
                            lines: Vec::new(),
                        });
                        self.series_index.insert(key, series.len() - 1);
                        series.len() - 1
                    }
                };
                self.last = Some((run, s));
                s
            }
        };
        let s = &mut self.runs[run].series[series];
        if let Some(unit) = row.unit {
            if s.unit.as_ref().map(Unit::as_str) != Some(unit.trim()) {
                return Err(IngestError::at_line(
                    row.line,
                    format!(
                        "unit '{}' differs from '{}' given earlier for metric {} param '{}'",
                        shorten(unit),
                        s.unit.as_ref().map_or("", Unit::as_str),
                        s.metric,
                        s.param
                    ),
                ));
            }
        }
        if let Some(direction) = row.direction {
            if s.direction != direction {
                return Err(IngestError::at_line(
                    row.line,
                    format!(
                        "direction '{}' differs from '{}' given earlier for metric {} param '{}'",
                        direction.as_str(),
                        s.direction.as_str(),
                        s.metric,
                        s.param
                    ),
                ));
            }
        }
        let iteration = row.iteration.unwrap_or(s.samples.len() as i64);
        s.samples.push((iteration, row.value));
        s.lines.push(row.line);
        Ok(())
    }

    /// Several samples of one series of run `run` at once (`samples[i]` from line
    /// `lines[i]`): the series is found or made once, as [`push`](Self::push) would for the
    /// first, and the rest are appended under the same bounds.
    pub fn push_group(
        &mut self,
        run: usize,
        metric: &str,
        param: &str,
        direction: Direction,
        samples: &[(i64, f64)],
        lines: &[u64],
    ) -> Result<(), IngestError> {
        let Some((&(iteration, value), rest)) = samples.split_first() else {
            return Ok(());
        };
        let line = |i: usize| lines.get(i).copied().unwrap_or(0);
        self.push(Row {
            line: line(0),
            run,
            metric,
            param,
            unit: None,
            direction: Some(direction),
            iteration: Some(iteration),
            value,
        })?;
        for (i, &(_, v)) in rest.iter().enumerate() {
            check_value(v).map_err(|e| IngestError {
                field: Some("value".into()),
                ..IngestError::at_line(line(i + 1), e)
            })?;
        }
        let before = self.sample_count;
        self.sample_count += rest.len();
        if self.sample_count > MAX_SAMPLES {
            return Err(IngestError {
                line: Some(line(MAX_SAMPLES - before + 1)),
                ..IngestError::new(format!(
                    "more than {MAX_SAMPLES} samples in one upload; split it"
                ))
            });
        }
        if before / 65_536 != self.sample_count / 65_536 && cancel::requested() {
            return Err(cancelled());
        }
        // `push` left the series it used as the last one.
        let Some((r, s)) = self.last else {
            return Ok(());
        };
        let series = &mut self.runs[r].series[s];
        series.samples.extend_from_slice(rest);
        series.lines.extend((1..samples.len()).map(line));
        Ok(())
    }

    /// Finishes: sorts samples by iteration and refuses duplicates and empty results; what
    /// it made is added to the upload's budget.
    pub fn finish(self) -> Result<Vec<ParsedRun>, IngestError> {
        if self.too_many_runs {
            return Err(too_many_runs(None));
        }
        let (budget, series, samples) = (
            self.budget,
            self.series_count - self.series_before,
            self.sample_count - self.samples_before,
        );
        // A run is only created for rows, but a parser may create one before it finds any
        // (sysbench names its run from the header): a run without samples is no result.
        let mut runs: Vec<ParsedRun> = self
            .runs
            .into_iter()
            .filter(|r| r.series.iter().any(|s| !s.samples.is_empty()))
            .collect();
        if runs.is_empty() {
            return Err(IngestError::new(
                "no samples found: the file has no result rows Perfline can read",
            ));
        }
        budget.spend(runs.len(), series, samples);
        for run in &mut runs {
            run.series.retain(|s| !s.samples.is_empty());
            for s in &run.series {
                // Derived series do not pass through `push`.
                if let Some(Err(e)) = s
                    .samples
                    .iter()
                    .map(|(_, v)| check_value(*v))
                    .find(Result::is_err)
                {
                    return Err(IngestError::field(
                        "value",
                        format!("metric {}: {e}", s.metric),
                    ));
                }
            }
        }
        for run in &mut runs {
            for s in &mut run.series {
                let sorted = s.samples.windows(2).all(|w| w[0].0 < w[1].0);
                if !sorted {
                    let mut order: Vec<usize> = (0..s.samples.len()).collect();
                    order.sort_by_key(|&i| (s.samples[i].0, s.lines[i]));
                    for w in order.windows(2) {
                        if s.samples[w[0]].0 == s.samples[w[1]].0 {
                            return Err(IngestError::at_line(
                                s.lines[w[1]],
                                format!(
                                    "iteration {} of metric {} param '{}' is given twice (first on line {})",
                                    s.samples[w[0]].0, s.metric, s.param, s.lines[w[0]]
                                ),
                            ));
                        }
                    }
                    s.samples = order.iter().map(|&i| s.samples[i]).collect();
                }
                s.lines = Vec::new();
            }
        }
        Ok(runs)
    }
}

fn too_many_runs(line: Option<u64>) -> IngestError {
    IngestError {
        line,
        ..IngestError::new(format!(
            "more than {MAX_RUNS} runs (benchmark, machine, kernel, commit) in one upload; split it"
        ))
    }
}
