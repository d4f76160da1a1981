// SPDX-License-Identifier: GPL-3.0-or-later
//! Reading: runs, uploads, the dashboard lists and the samples behind a comparison.

use super::StoreResult;
use std::collections::BTreeMap;

use super::sql::{query, query_as, sql, Builder, Engine, Row, Target};
use app::kernel::compare_kernels;
use app::label::Direction;
use app::types::{
    compare_params, BenchmarkSummary, CompareQuery, NamedCount, RunSummary, Series, UploadFile,
    UploadSummary,
};

use super::Store;

/// Filters of `GET /api/v1/runs`.
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    pub benchmark: Option<String>,
    pub machine: Option<String>,
    pub kernel: Option<String>,
    pub upload: Option<i64>,
}

pub struct StoredFile {
    pub name: Option<String>,
    pub format: String,
    pub raw: Vec<u8>,
}

/// One stored series with what a comparison groups it by.
pub struct CompareSeries {
    pub run_id: i64,
    pub kernel: String,
    pub metric: String,
    pub param: String,
    pub unit: Option<String>,
    pub direction: Direction,
    /// The iteration numbers of `values`, in order.
    pub iterations: Vec<i64>,
    /// The file wrote every value as an integer (LKP's JSON tells).
    pub integer: bool,
    pub values: Vec<f64>,
}

/// The columns `run_summary` reads.
macro_rules! run_columns {
    () => {
        "SELECT r.id, r.benchmark, m.name AS machine, k.version AS kernel, r.commit_sha, r.tags, r.facts, r.sample_count, r.upload_id, r.created_at, \
     (SELECT u.uploaded_by FROM upload u WHERE u.id = r.upload_id) AS uploaded_by \
     FROM run r JOIN machine m ON m.id = r.machine_id JOIN kernel k ON k.id = r.kernel_id"
    };
}

fn run_summary(row: &Row) -> RunSummary {
    let id: i64 = row.get("id");
    let tags: String = row.get("tags");
    let facts: String = row.get("facts");
    RunSummary {
        id,
        benchmark: row.get("benchmark"),
        machine: row.get("machine"),
        kernel: row.get("kernel"),
        commit: row.get("commit_sha"),
        tags: serde_json::from_str(&tags).unwrap_or_default(),
        facts: serde_json::from_str(&facts).unwrap_or_default(),
        samples: row.get("sample_count"),
        upload_id: row.get("upload_id"),
        uploaded_by: row.get("uploaded_by"),
        created_at: row.get("created_at"),
        url: format!("/api/v1/runs/{id}"),
        page: format!("/runs/{id}"),
    }
}

fn push_filter(q: &mut Builder<'_>, f: &RunFilter) {
    q.push(" WHERE 1=1");
    if let Some(b) = &f.benchmark {
        q.push(" AND r.benchmark = ").push_bind(b.clone());
    }
    if let Some(m) = &f.machine {
        q.push(" AND m.name = ").push_bind(m.clone());
    }
    if let Some(k) = &f.kernel {
        q.push(" AND k.version = ").push_bind(k.clone());
    }
    if let Some(u) = f.upload {
        q.push(" AND r.upload_id = ").push_bind(u);
    }
}

impl Store {
    /// Runs matching the filter, newest first, and how many match in all.
    pub async fn list_runs(
        &self,
        filter: &RunFilter,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<RunSummary>, i64)> {
        let mut count = Builder::new("SELECT COUNT(*) FROM run r JOIN machine m ON m.id = r.machine_id JOIN kernel k ON k.id = r.kernel_id");
        push_filter(&mut count, filter);
        let (total,): (i64,) = count.build_query_as().fetch_one(&self.reader).await?;
        let mut q = Builder::new(run_columns!());
        push_filter(&mut q, filter);
        q.push(" ORDER BY r.id DESC LIMIT ")
            .push_bind(limit)
            .push(" OFFSET ")
            .push_bind(offset);
        let rows = q.build().fetch_all(&self.reader).await?;
        Ok((rows.iter().map(run_summary).collect(), total))
    }

    pub async fn run(&self, id: i64) -> StoreResult<Option<RunSummary>> {
        let row = query(sql!(run_columns!(), " WHERE r.id = ?"))
            .bind(id)
            .fetch_optional(&self.reader)
            .await?;
        Ok(row.as_ref().map(run_summary))
    }

    /// The series of a run with their samples, metrics by name and parameters in natural order.
    pub async fn run_series(&self, run_id: i64) -> StoreResult<Vec<Series>> {
        let packed: Option<(Vec<u8>,)> =
            query_as(sql!("SELECT packed FROM run_data WHERE run_id = ?"))
                .bind(run_id)
                .fetch_optional(&self.reader)
                .await?;
        let Some((packed,)) = packed else {
            return Ok(Vec::new());
        };
        let stored = super::run_pack::unpack(&packed)?;
        let names = self
            .keys
            .names(Target::from(&self.reader), stored.iter().map(|s| s.key))
            .await?;
        let mut series: Vec<Series> = stored
            .into_iter()
            .map(|s| {
                let k = &names[&s.key];
                Series {
                    metric: k.metric.clone(),
                    param: k.param.clone(),
                    unit: k.unit.clone(),
                    direction: k.direction,
                    samples: s.iterations.into_iter().zip(s.values).collect(),
                }
            })
            .collect();
        series.sort_by(|a, b| {
            a.metric
                .cmp(&b.metric)
                .then_with(|| compare_params(&a.param, &b.param))
        });
        Ok(series)
    }

    async fn upload_files(target: Target<'_>, upload_id: i64) -> StoreResult<Vec<UploadFile>> {
        let rows = query(sql!("SELECT idx, name, format, size, sha256 FROM upload_file WHERE upload_id = ? ORDER BY idx"))
            .bind(upload_id)
            .fetch_all(target)
            .await?;
        Ok(rows
            .iter()
            .map(|r| {
                let index: i64 = r.get("idx");
                UploadFile {
                    index,
                    name: r.get("name"),
                    format: r.get("format"),
                    size: r.get("size"),
                    sha256: r.get("sha256"),
                    raw_url: format!("/api/v1/uploads/{upload_id}/raw?file={index}"),
                }
            })
            .collect())
    }

    pub async fn upload(&self, id: i64) -> StoreResult<Option<UploadSummary>> {
        Store::upload_in(Target::from(&self.reader), id).await
    }

    /// An upload and its runs as the transaction `tx` sees them: what an upload's answer is
    /// built from, inside the transaction that stored it.
    pub(super) async fn upload_detail_in(
        tx: &mut super::sql::Tx,
        id: i64,
    ) -> StoreResult<Option<app::types::UploadDetail>> {
        let Some(upload) = Store::upload_in(Target::from(&mut *tx), id).await? else {
            return Ok(None);
        };
        let mut q = Builder::new(run_columns!());
        q.push(" WHERE r.upload_id = ")
            .push_bind(id)
            .push(" ORDER BY r.id");
        let rows = q.build().fetch_all(&mut *tx).await?;
        Ok(Some(app::types::UploadDetail {
            upload,
            runs: rows.iter().map(run_summary).collect(),
        }))
    }

    /// [`Store::upload_detail_in`] of an upload just stored (`summary`, by
    /// [`Store::upload_in`] in its transaction), its runs `upload.runs` with ids `run_ids`,
    /// stored at `created_at`: the runs summarised from what was stored rather than read back
    /// (an mmtests tree's 186 runs, their facts parsed again, were a tenth of its store; their
    /// times alone, a row each through SQLite's worker, 1.2 ms). No query: it is worked out
    /// while the commit reaches the disk.
    pub(super) fn stored_upload_detail(
        summary: UploadSummary,
        upload: &super::NewUpload,
        run_ids: &[i64],
        created_at: &str,
    ) -> app::types::UploadDetail {
        let id = summary.id;
        let mut runs: Vec<RunSummary> = run_ids
            .iter()
            .zip(&upload.runs)
            .map(|(&run, r)| RunSummary {
                id: run,
                benchmark: r.key.benchmark.as_str().to_owned(),
                machine: r.key.machine.as_str().to_owned(),
                kernel: r.key.kernel.as_str().to_owned(),
                commit: r.key.commit.as_ref().map(|c| c.as_str().to_owned()),
                tags: r
                    .tags
                    .iter()
                    .map(|(k, v)| (k.as_str().to_owned(), v.as_str().to_owned()))
                    .collect(),
                facts: r.facts.clone(),
                samples: r.sample_count() as i64,
                upload_id: id,
                uploaded_by: summary.uploaded_by.clone(),
                created_at: created_at.to_owned(),
                url: format!("/api/v1/runs/{run}"),
                page: format!("/runs/{run}"),
            })
            .collect();
        runs.sort_by_key(|r| r.id);
        app::types::UploadDetail {
            upload: summary,
            runs,
        }
    }

    pub(super) async fn upload_in(
        mut target: Target<'_>,
        id: i64,
    ) -> StoreResult<Option<UploadSummary>> {
        let row = query(
            sql!("SELECT u.id, u.created_at, u.uploaded_by, COUNT(r.id) AS runs, CAST(COALESCE(SUM(r.sample_count), 0) AS BIGINT) AS samples \
             FROM upload u LEFT JOIN run r ON r.upload_id = u.id WHERE u.id = ? GROUP BY u.id"),
        )
        .bind(id)
        .fetch_optional(target.reborrow())
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(UploadSummary {
            id,
            created_at: row.get("created_at"),
            uploaded_by: row.get("uploaded_by"),
            files: Store::upload_files(target, id).await?,
            runs: row.get("runs"),
            samples: row.get("samples"),
            url: format!("/api/v1/uploads/{id}"),
            page: format!("/uploads/{id}"),
        }))
    }

    pub async fn recent_uploads(&self, limit: i64) -> StoreResult<Vec<UploadSummary>> {
        let ids: Vec<(i64,)> = query_as(sql!("SELECT id FROM upload ORDER BY id DESC LIMIT ?"))
            .bind(limit)
            .fetch_all(&self.reader)
            .await?;
        let mut out = Vec::with_capacity(ids.len());
        for (id,) in ids {
            if let Some(u) = self.upload(id).await? {
                out.push(u);
            }
        }
        Ok(out)
    }

    pub async fn upload_file(&self, upload_id: i64, idx: i64) -> StoreResult<Option<StoredFile>> {
        let row = query(sql!(
            "SELECT name, format, raw FROM upload_file WHERE upload_id = ? AND idx = ?"
        ))
        .bind(upload_id)
        .bind(idx)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|r| StoredFile {
            name: r.get("name"),
            format: r.get("format"),
            raw: r.get("raw"),
        }))
    }

    /// Every benchmark with its run count, machines and kernels (kernels in version order).
    pub async fn benchmarks(&self) -> StoreResult<Vec<BenchmarkSummary>> {
        let rows: Vec<(String, String, String, i64)> = query_as(
            sql!("SELECT r.benchmark, m.name, k.version, COUNT(*) FROM run r JOIN machine m ON m.id = r.machine_id \
             JOIN kernel k ON k.id = r.kernel_id GROUP BY r.benchmark, m.name, k.version"),
        )
        .fetch_all(&self.reader)
        .await?;
        // Sets, not `Vec::contains`: one upload may name thousands of kernels.
        type Names = std::collections::BTreeSet<String>;
        let mut by_name: BTreeMap<String, (i64, Names, Names)> = BTreeMap::new();
        for (benchmark, machine, kernel, runs) in rows {
            let b = by_name.entry(benchmark).or_default();
            b.0 += runs;
            b.1.insert(machine);
            b.2.insert(kernel);
        }
        Ok(by_name
            .into_iter()
            .map(|(name, (runs, machines, kernels))| {
                let mut kernels: Vec<String> = kernels.into_iter().collect();
                kernels.sort_by(|a, b| compare_kernels(a, b));
                BenchmarkSummary {
                    name,
                    runs,
                    machines: machines.into_iter().collect(),
                    kernels,
                }
            })
            .collect())
    }

    /// The benchmarks `kernel` ran on `machine`, by name, each with its first run's id (whose
    /// facts say where it ran in an mmtests tree).
    pub async fn benchmarks_of(
        &self,
        machine: &str,
        kernel: &str,
    ) -> StoreResult<Vec<(String, i64)>> {
        let rows = query_as(sql!(
            "SELECT r.benchmark, MIN(r.id) FROM run r JOIN machine m ON m.id = r.machine_id \
             JOIN kernel k ON k.id = r.kernel_id WHERE m.name = ? AND k.version = ? \
             GROUP BY r.benchmark ORDER BY r.benchmark{bytes}"
        ))
        .bind(machine)
        .bind(kernel)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows)
    }

    pub async fn machines(&self) -> StoreResult<Vec<NamedCount>> {
        let rows: Vec<(String, i64)> =
            query_as(sql!("SELECT m.name, COUNT(r.id) FROM machine m LEFT JOIN run r ON r.machine_id = m.id GROUP BY m.id ORDER BY m.name{bytes}"))
                .fetch_all(&self.reader)
                .await?;
        Ok(rows
            .into_iter()
            .map(|(name, runs)| NamedCount { name, runs })
            .collect())
    }

    pub async fn kernels(&self) -> StoreResult<Vec<NamedCount>> {
        let rows: Vec<(String, i64)> =
            query_as(sql!("SELECT k.version, COUNT(r.id) FROM kernel k LEFT JOIN run r ON r.kernel_id = k.id GROUP BY k.id"))
                .fetch_all(&self.reader)
                .await?;
        let mut out: Vec<NamedCount> = rows
            .into_iter()
            .map(|(name, runs)| NamedCount { name, runs })
            .collect();
        out.sort_by(|a, b| compare_kernels(&a.name, &b.name));
        Ok(out)
    }

    /// Kernels that have runs of `benchmark` on `machine`, in version order.
    pub async fn kernels_for(&self, benchmark: &str, machine: &str) -> StoreResult<Vec<String>> {
        let rows: Vec<(String,)> = query_as(
            sql!("SELECT DISTINCT k.version FROM run r JOIN machine m ON m.id = r.machine_id JOIN kernel k ON k.id = r.kernel_id \
             WHERE r.benchmark = ? AND m.name = ?"),
        )
        .bind(benchmark)
        .bind(machine)
        .fetch_all(&self.reader)
        .await?;
        let mut out: Vec<String> = rows.into_iter().map(|(k,)| k).collect();
        out.sort_by(|a, b| compare_kernels(a, b));
        Ok(out)
    }

    /// Every series of `benchmark` on `machine` for the given kernels (and metric, if given),
    /// restricted to `runs` when the comparison is pinned by a permalink.
    pub async fn compare_series(
        &self,
        query: &CompareQuery,
        runs: Option<&[i64]>,
    ) -> StoreResult<Vec<CompareSeries>> {
        if query.kernels.is_empty() || runs.is_some_and(<[i64]>::is_empty) {
            return Ok(Vec::new());
        }
        let columns: Vec<app::types::ColumnSpec> = if query.columns {
            query
                .kernels
                .iter()
                .map(|k| app::types::ColumnSpec::parse(k).unwrap_or_default())
                .collect()
        } else {
            Vec::new()
        };
        let engine = self.reader.engine();
        let mut q = Builder::new("SELECT r.id, ");
        if query.columns {
            // The first column whose spec a run matches names it (its label is the spec).
            q.push("CASE");
            for (i, c) in columns.iter().enumerate() {
                q.push(" WHEN ");
                column_condition(&mut q, engine, c, query.machine_name());
                q.push(" THEN ").push_bind(query.kernels[i].clone());
            }
            q.push(" END");
        } else {
            q.push("k.version");
        }
        q.push(
            ", d.packed FROM run r JOIN machine m ON m.id = r.machine_id \
             JOIN kernel k ON k.id = r.kernel_id JOIN run_data d ON d.run_id = r.id",
        );
        q.push(" WHERE r.benchmark = ");
        q.push_bind(query.benchmark.clone());
        if query.columns {
            q.push(" AND (");
            for (i, c) in columns.iter().enumerate() {
                if i > 0 {
                    q.push(" OR ");
                }
                column_condition(&mut q, engine, c, query.machine_name());
            }
            q.push(")");
        } else {
            q.push(" AND m.name = ")
                .push_bind(query.machine_name().to_owned())
                .push(" AND k.version IN ")
                .push_list(query.kernels.iter().cloned());
        }
        if let Some(runs) = runs {
            // One bound JSON array, not one variable per run: a permalink may pin tens of
            // thousands of runs, beyond SQLite's bound-variable limit.
            q.push(" AND r.id IN {ids}")
                .push_arg(serde_json::to_string(runs).unwrap_or_else(|_| "[]".into()));
        }
        q.push(" ORDER BY r.id");
        let rows: Vec<(i64, String, Vec<u8>)> = q.build_query_as().fetch_all(&self.reader).await?;
        self.decode_runs(rows, query.metric.as_ref().map(app::label::Metric::as_str))
            .await
    }
}

/// A run of an A/A upload: which calibration, benchmark, machine and kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationRun {
    pub run_id: i64,
    pub calibration: String,
    pub benchmark: String,
    pub machine: String,
    pub kernel: String,
}

/// The most A/A runs one calibration report reads.
pub const MAX_CALIBRATION_RUNS: i64 = 2000;

impl Store {
    /// The runs of A/A uploads (`calibration=NAME`), of `benchmark` and on `machine` when
    /// given, newest last, at most [`MAX_CALIBRATION_RUNS`] (the newest), with their series
    /// (`CompareSeries::kernel` is the run's kernel).
    pub async fn calibration_series(
        &self,
        benchmark: Option<&str>,
        machine: Option<&str>,
    ) -> StoreResult<(Vec<CalibrationRun>, Vec<CompareSeries>)> {
        let mut q = Builder::new(
            "SELECT r.id, u.calibration, r.benchmark, m.name, k.version, d.packed FROM upload u \
             JOIN run r ON r.upload_id = u.id JOIN machine m ON m.id = r.machine_id \
             JOIN kernel k ON k.id = r.kernel_id JOIN run_data d ON d.run_id = r.id \
             WHERE u.calibration IS NOT NULL",
        );
        if let Some(b) = benchmark {
            q.push(" AND r.benchmark = ").push_bind(b.to_owned());
        }
        if let Some(m) = machine {
            q.push(" AND m.name = ").push_bind(m.to_owned());
        }
        q.push(" ORDER BY r.id DESC LIMIT ")
            .push_bind(MAX_CALIBRATION_RUNS);
        let mut rows: Vec<(i64, String, String, String, String, Vec<u8>)> =
            q.build_query_as().fetch_all(&self.reader).await?;
        rows.reverse();
        let mut runs = Vec::with_capacity(rows.len());
        let mut packed = Vec::with_capacity(rows.len());
        for (run_id, calibration, benchmark, machine, kernel, data) in rows {
            packed.push((run_id, kernel.clone(), data));
            runs.push(CalibrationRun {
                run_id,
                calibration,
                benchmark,
                machine,
                kernel,
            });
        }
        let series = self.decode_runs(packed, None).await?;
        Ok((runs, series))
    }
}

impl Store {
    /// The facts and tags of runs, by run id: what a comparison diffs besides the kernel.
    /// Tags count as facts `tag.<key>`, and the run's machine as `machine`.
    pub async fn run_facts(
        &self,
        ids: &[i64],
    ) -> StoreResult<std::collections::HashMap<i64, Vec<(String, String)>>> {
        let ids = serde_json::to_string(ids)?;
        let rows: Vec<(i64, String, String, String)> = query_as(
            sql!("SELECT r.id, r.facts, r.tags, m.name FROM run r JOIN machine m ON m.id = r.machine_id \
             WHERE r.id IN {ids}"),
        )
        .bind(ids)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, facts, tags, machine)| {
                let mut all: Vec<(String, String)> =
                    serde_json::from_str(&facts).unwrap_or_default();
                // The machine it ran on: a fact when columns span machines.
                if !all.iter().any(|(k, _)| k == "machine") {
                    all.push(("machine".into(), machine));
                }
                let tags: Vec<(String, String)> = serde_json::from_str(&tags).unwrap_or_default();
                all.extend(tags.into_iter().map(|(k, v)| (format!("tag.{k}"), v)));
                (id, all)
            })
            .collect())
    }
}

/// The SQL condition of one comparison column: its kernel, its machine (or the query's), and
/// its tag, each when given.
fn column_condition(
    q: &mut Builder<'_>,
    engine: Engine,
    c: &app::types::ColumnSpec,
    machine: &str,
) {
    q.push("(1 = 1");
    if let Some(k) = &c.kernel {
        q.push(" AND k.version = ").push_bind(k.clone());
    }
    let m = c.machine.clone().unwrap_or_else(|| machine.to_owned());
    if !m.is_empty() {
        q.push(" AND m.name = ").push_bind(m);
    }
    if let Some((key, value)) = c.tag.as_ref().filter(|(k, _)| k == "commit") {
        // The run's commit, either abbreviating the other (the spec checked it is hex).
        let _ = key;
        // Compared as prefixes, not with LIKE: a stored `%` or `_` is no wildcard.
        q.push(" AND (substr(r.commit_sha, 1, length(")
            .push_bind(value.clone())
            .push(")) = ")
            .push_bind(value.clone())
            .push(" OR substr(")
            .push_bind(value.clone())
            .push(", 1, length(r.commit_sha)) = r.commit_sha)");
    } else if let Some((key, value)) = &c.tag {
        // Tags are stored as a JSON array of `[key, value]` pairs.
        q.push(match engine {
            Engine::Sqlite => {
                " AND EXISTS (SELECT 1 FROM json_each(r.tags) t WHERE json_extract(t.value, '$[0]') = "
            }
            Engine::Postgres => {
                " AND EXISTS (SELECT 1 FROM json_array_elements(CAST(r.tags AS JSON)) t WHERE t.value ->> 0 = "
            }
        })
        .push_bind(key.clone())
        .push(match engine {
            Engine::Sqlite => " AND json_extract(t.value, '$[1]') = ",
            Engine::Postgres => " AND t.value ->> 1 = ",
        })
        .push_bind(value.clone())
        .push(")");
    }
    q.push(")");
}

impl Store {
    /// The series of packed runs (`(run id, column label, run_data.packed)`, in run order), each
    /// labelled with its run's column; only `metric`'s when given.
    pub(super) async fn decode_runs(
        &self,
        rows: Vec<(i64, String, Vec<u8>)>,
        metric: Option<&str>,
    ) -> StoreResult<Vec<CompareSeries>> {
        let mut series = Vec::new();
        for (run_id, kernel, packed) in rows {
            let stored = super::run_pack::unpack(&packed)?;
            let names = self
                .keys
                .names(Target::from(&self.reader), stored.iter().map(|s| s.key))
                .await?;
            for s in stored {
                let k = &names[&s.key];
                if metric.is_some_and(|m| m != k.metric) {
                    continue;
                }
                series.push(CompareSeries {
                    run_id,
                    kernel: kernel.clone(),
                    metric: k.metric.clone(),
                    param: k.param.clone(),
                    unit: k.unit.clone(),
                    direction: k.direction,
                    integer: s.integer,
                    iterations: s.iterations,
                    values: s.values,
                });
            }
        }
        Ok(series)
    }
}

impl Store {
    /// The newest upload holding an mmtests tree of each machine that has one, newest first (at
    /// most `limit`): where the dashboard finds every machine's tree, however many uploads
    /// came since (issue 54).
    pub async fn newest_tree_uploads(&self, limit: i64) -> StoreResult<Vec<i64>> {
        let rows: Vec<(i64,)> = query_as(sql!(
            "SELECT MAX(r.upload_id) FROM run r WHERE r.upload_id IN (SELECT upload_id FROM upload_file WHERE format = 'mmtests') GROUP BY r.machine_id ORDER BY 1 DESC LIMIT ?"
        ))
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }
}
