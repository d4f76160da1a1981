//! Writing an upload: one transaction on the single writer connection.

use super::{StoreError, StoreResult};
use std::collections::BTreeMap;

use super::sql::{query, query_as, sql, Tx};

use super::history::TrendKey;
use super::trend_pack::{pack_chunk, unpack_chunk, CHUNK_RUNS};
use super::trend_pack::{HistoryCommit, TrendRun};
use super::Store;
use crate::ingest::ParsedRun;

pub struct NewFile {
    pub name: Option<String>,
    pub format: String,
    pub sha256: String,
    pub bytes: bytes::Bytes,
}

pub struct NewUpload {
    pub digest: String,
    pub metadata: String,
    pub files: Vec<NewFile>,
    /// The runs parsed from each file, in file order.
    pub runs: Vec<ParsedRun>,
    /// A bisect mark and a commit time for every run, from the upload's fields.
    pub mark: Option<app::trend::Mark>,
    pub commit_time: Option<i64>,
    /// Who stored it: a token's name, or `open`; recorded with the upload and in the audit
    /// trail, in the upload's transaction.
    pub uploaded_by: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    Created(i64),
    /// The same bytes with the same metadata were uploaded before as this upload.
    Existing(i64),
}

impl Store {
    pub async fn insert_upload(&self, upload: &NewUpload) -> StoreResult<Inserted> {
        Ok(self.insert_upload_detailed(upload).await?.0)
    }

    /// Stores an upload as [`Store::insert_upload`] does, and answers with what the
    /// transaction wrote (the upload, its files and runs), read inside it before the commit:
    /// an acknowledgement never needs a second round trip that could fail after the commit.
    pub async fn insert_upload_detailed(
        &self,
        upload: &NewUpload,
    ) -> StoreResult<(Inserted, app::types::UploadDetail)> {
        let mut tx = self.writer.begin_write().await?;
        if let Some((id,)) = query_as::<(i64,)>(sql!("SELECT id FROM upload WHERE digest = ?"))
            .bind(&upload.digest)
            .fetch_optional(&mut tx)
            .await?
        {
            let detail = Store::upload_detail_in(&mut tx, id)
                .await?
                .ok_or_else(|| StoreError::NotFound(format!("upload {id} vanished")))?;
            return Ok((Inserted::Existing(id), detail));
        }
        let (upload_id,): (i64,) = query_as(sql!(
            "INSERT INTO upload (digest, metadata, uploaded_by) VALUES (?, ?, ?) RETURNING id"
        ))
        .bind(&upload.digest)
        .bind(&upload.metadata)
        .bind(&upload.uploaded_by)
        .fetch_one(&mut tx)
        .await?;
        for (idx, f) in upload.files.iter().enumerate() {
            query(sql!("INSERT INTO upload_file (upload_id, idx, name, format, sha256, size, raw) VALUES (?, ?, ?, ?, ?, ?, ?)"))
                .bind(upload_id)
                .bind(idx as i64)
                .bind(&f.name)
                .bind(&f.format)
                .bind(&f.sha256)
                .bind(f.bytes.len() as i64)
                .bind(f.bytes.as_ref())
                .execute(&mut tx)
                .await?;
        }
        let mut trends = BTreeMap::new();
        if let Some(pg) = tx.postgres() {
            insert_runs_postgres(pg, upload_id, upload, &mut trends).await?;
        } else {
            for run in &upload.runs {
                insert_run(&mut tx, upload_id, run, upload, &mut trends).await?;
            }
        }
        append_to_trends(&mut tx, &trends).await?;
        queue_alert_jobs(&mut tx, &trends, upload_id).await?;
        let samples: usize = upload.runs.iter().map(ParsedRun::sample_count).sum();
        super::tokens::audit_in(
            &mut tx,
            &upload.uploaded_by,
            "upload",
            &format!("upload {upload_id}"),
            &format!("{} run(s), {samples} sample(s)", upload.runs.len()),
        )
        .await?;
        let detail = Store::upload_detail_in(&mut tx, upload_id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("upload {upload_id} vanished")))?;
        tx.commit().await?;
        self.alert_jobs_queued.notify_one();
        Ok((Inserted::Created(upload_id), detail))
    }
}

/// The id of the machine or kernel named `value`, created if new.
pub(super) async fn id_of(conn: &mut Tx, table: Named, value: &str) -> StoreResult<i64> {
    let sql = match table {
        Named::Machine => sql!("INSERT INTO machine (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id"),
        Named::Kernel => sql!("INSERT INTO kernel (version) VALUES (?) ON CONFLICT (version) DO UPDATE SET version = excluded.version RETURNING id"),
    };
    let (id,): (i64,) = query_as(sql).bind(value).fetch_one(&mut *conn).await?;
    Ok(id)
}

/// The tables of named things a run refers to.
#[derive(Clone, Copy)]
pub(super) enum Named {
    Machine,
    Kernel,
}

async fn insert_run(
    conn: &mut Tx,
    upload_id: i64,
    run: &ParsedRun,
    upload: &NewUpload,
    trends: &mut BTreeMap<TrendKey, Vec<TrendRun>>,
) -> StoreResult<i64> {
    let machine_id = id_of(&mut *conn, Named::Machine, run.key.machine.as_str()).await?;
    let kernel_id = id_of(&mut *conn, Named::Kernel, run.key.kernel.as_str()).await?;
    let (run_id,): (i64,) = query_as(
        sql!("INSERT INTO run (upload_id, benchmark, machine_id, kernel_id, commit_sha, tags, facts, sample_count, mark, commit_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"),
    )
    .bind(upload_id)
    .bind(run.key.benchmark.as_str())
    .bind(machine_id)
    .bind(kernel_id)
    .bind(run.key.commit.as_ref().map(app::label::Label::as_str))
    .bind(tags_json(run)?)
    .bind(serde_json::to_string(&run.facts)?)
    .bind(run.sample_count() as i64)
    .bind(upload.mark.map(app::trend::Mark::as_str))
    .bind(upload.commit_time)
    .fetch_one(&mut *conn)
    .await?;
    // One row per series, its samples packed (see `packed.rs`).
    for s in &run.series {
        query(sql!("INSERT INTO series (run_id, metric, param, unit, direction, packed) VALUES (?, ?, ?, ?, ?, ?)"))
            .bind(run_id)
            .bind(s.metric.as_str())
            .bind(&s.param)
            .bind(s.unit.as_deref())
            .bind(s.direction.as_str())
            .bind(super::packed::pack(&s.samples))
            .execute(&mut *conn)
            .await?;
    }
    add_trend_records(trends, run, run_id, machine_id, upload.commit_time);
    Ok(run_id)
}

/// A run's tags as stored: a JSON array of `[key, value]` pairs.
fn tags_json(run: &ParsedRun) -> StoreResult<String> {
    Ok(serde_json::to_string(
        &run.tags
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
    )?)
}

/// Adds the trend record of each of a stored run's series with samples.
fn add_trend_records(
    trends: &mut BTreeMap<TrendKey, Vec<TrendRun>>,
    run: &ParsedRun,
    run_id: i64,
    machine_id: i64,
    commit_time: Option<i64>,
) {
    for s in &run.series {
        if s.samples.is_empty() {
            continue;
        }
        let values: Vec<f64> = s.samples.iter().map(|&(_, v)| v).collect();
        let record = trend_record(
            TrendRun {
                run_id,
                kernel: run.key.kernel.as_str().into(),
                commit: run.key.commit.as_ref().map(|c| c.as_str().into()),
                commit_time,
                unit: s.unit.as_deref().map(Into::into),
                direction: s.direction,
                ..TrendRun::default()
            },
            &values,
        );
        let key = (
            run.key.benchmark.as_str().to_owned(),
            machine_id,
            s.metric.as_str().to_owned(),
            s.param.clone(),
        );
        trends.entry(key).or_default().push(record);
    }
}

/// The ids of `names` in `machine` or `kernel` (by the upsert `sql`), created if new.
async fn ids_of_names(
    pg: &mut sqlx::PgConnection,
    sql: &'static str,
    mut names: Vec<&str>,
) -> StoreResult<std::collections::HashMap<String, i64>> {
    names.sort_unstable();
    names.dedup();
    let rows: Vec<(i64, String)> = sqlx::query_as(sql).bind(names).fetch_all(pg).await?;
    Ok(rows.into_iter().map(|(id, name)| (name, id)).collect())
}

/// Inserts all of an upload's runs and series on PostgreSQL in five statements, whatever
/// their number: machines and kernels (`UNNEST`ed names, upserted), the run ids (taken from
/// the identity's sequence), the runs and the series, each column bound as one array and
/// `UNNEST`ed. (SQLite inserts them row by row: in process, a row costs microseconds; here each
/// statement is a round trip.)
async fn insert_runs_postgres(
    pg: &mut sqlx::PgConnection,
    upload_id: i64,
    upload: &NewUpload,
    trends: &mut BTreeMap<TrendKey, Vec<TrendRun>>,
) -> StoreResult<()> {
    let runs = &upload.runs;
    if runs.is_empty() {
        return Ok(());
    }
    let machines = ids_of_names(
        &mut *pg,
        "INSERT INTO machine (name) SELECT * FROM UNNEST($1::TEXT[]) \
         ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id, name",
        runs.iter().map(|r| r.key.machine.as_str()).collect(),
    )
    .await?;
    let kernels = ids_of_names(
        &mut *pg,
        "INSERT INTO kernel (version) SELECT * FROM UNNEST($1::TEXT[]) \
         ON CONFLICT (version) DO UPDATE SET version = excluded.version RETURNING id, version",
        runs.iter().map(|r| r.key.kernel.as_str()).collect(),
    )
    .await?;
    let run_ids: Vec<(i64,)> = sqlx::query_as(
        "SELECT nextval(pg_get_serial_sequence('run', 'id')) FROM generate_series(1, $1)",
    )
    .bind(runs.len() as i64)
    .fetch_all(&mut *pg)
    .await?;
    let run_ids: Vec<i64> = run_ids.into_iter().map(|(id,)| id).collect();
    let machine_of = |r: &ParsedRun| {
        machines
            .get(r.key.machine.as_str())
            .copied()
            .unwrap_or_default()
    };
    let mut tags = Vec::with_capacity(runs.len());
    let mut facts = Vec::with_capacity(runs.len());
    for r in runs {
        tags.push(tags_json(r)?);
        facts.push(serde_json::to_string(&r.facts)?);
    }
    sqlx::query(
        "INSERT INTO run (id, upload_id, benchmark, machine_id, kernel_id, commit_sha, tags, facts, sample_count, mark, commit_time) \
         SELECT u.id, $1, u.benchmark, u.machine_id, u.kernel_id, u.commit_sha, u.tags, u.facts, u.samples, $2, $3 \
         FROM UNNEST($4::BIGINT[], $5::TEXT[], $6::BIGINT[], $7::BIGINT[], $8::TEXT[], $9::TEXT[], $10::TEXT[], $11::BIGINT[]) \
         AS u(id, benchmark, machine_id, kernel_id, commit_sha, tags, facts, samples)",
    )
    .bind(upload_id)
    .bind(upload.mark.map(app::trend::Mark::as_str))
    .bind(upload.commit_time)
    .bind(&run_ids)
    .bind(runs.iter().map(|r| r.key.benchmark.as_str()).collect::<Vec<_>>())
    .bind(runs.iter().map(machine_of).collect::<Vec<_>>())
    .bind(
        runs.iter()
            .map(|r| kernels.get(r.key.kernel.as_str()).copied().unwrap_or_default())
            .collect::<Vec<_>>(),
    )
    .bind(
        runs.iter()
            .map(|r| r.key.commit.as_ref().map(app::label::Label::as_str))
            .collect::<Vec<_>>(),
    )
    .bind(tags)
    .bind(facts)
    .bind(runs.iter().map(|r| r.sample_count() as i64).collect::<Vec<_>>())
    .execute(&mut *pg)
    .await?;
    // Every series of every run, one row each, its samples packed (see `packed.rs`).
    let series = || {
        runs.iter()
            .zip(&run_ids)
            .flat_map(|(r, id)| r.series.iter().map(move |s| (*id, s)))
    };
    sqlx::query(
        "INSERT INTO series (run_id, metric, param, unit, direction, packed) \
         SELECT * FROM UNNEST($1::BIGINT[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::BYTEA[])",
    )
    .bind(series().map(|(id, _)| id).collect::<Vec<_>>())
    .bind(series().map(|(_, s)| s.metric.as_str()).collect::<Vec<_>>())
    .bind(series().map(|(_, s)| s.param.as_str()).collect::<Vec<_>>())
    .bind(series().map(|(_, s)| s.unit.as_deref()).collect::<Vec<_>>())
    .bind(series().map(|(_, s)| s.direction.as_str()).collect::<Vec<_>>())
    .bind(
        series()
            .map(|(_, s)| super::packed::pack(&s.samples))
            .collect::<Vec<_>>(),
    )
    .execute(&mut *pg)
    .await?;
    for (r, id) in runs.iter().zip(&run_ids) {
        add_trend_records(trends, r, *id, machine_of(r), upload.commit_time);
    }
    Ok(())
}

/// `run` with the summary of `values`.
fn trend_record(run: TrendRun, values: &[f64]) -> TrendRun {
    let (n, sum, min, max) = TrendRun::summary(values);
    TrendRun {
        n,
        sum,
        min,
        max,
        ..run
    }
}

impl Store {
    /// Fills what migration 0005 added for data stored before it: the packed trend chunks and
    /// the packed histories. Does nothing on a database written since (every write keeps them).
    pub(super) async fn fill_packed(&self) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        let (chunks, series): (bool, bool) = query_as(sql!(
            "SELECT EXISTS (SELECT 1 FROM trend_chunk), EXISTS (SELECT 1 FROM series)"
        ))
        .fetch_one(&mut tx)
        .await?;
        if series && !chunks {
            let rows: Vec<SeriesRow> = query_as(sql!(series_rows!(), " ORDER BY r.id, s.id"))
                .fetch_all(&mut tx)
                .await?;
            let mut trends: BTreeMap<TrendKey, Vec<TrendRun>> = BTreeMap::new();
            trend_records(&mut tx, rows, &mut trends).await?;
            append_to_trends(&mut tx, &trends).await?;
        }
        let histories: Vec<(i64,)> = query_as(sql!("SELECT id FROM history WHERE packed IS NULL"))
            .fetch_all(&mut tx)
            .await?;
        for (id,) in histories {
            let commits: Vec<HistoryCommit> = query_as::<(String, Option<i64>, Option<String>)>(
                sql!("SELECT sha, time, subject FROM history_commit WHERE history_id = ? ORDER BY position"),
            )
            .bind(id)
            .fetch_all(&mut tx)
            .await?
            .into_iter()
            .map(|(sha, time, subject)| HistoryCommit { sha, time, subject })
            .collect();
            query(sql!("UPDATE history SET packed = ? WHERE id = ?"))
                .bind(super::trend_pack::pack_commits(&commits))
                .bind(id)
                .execute(&mut tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// A run's series as `fill_packed` reads it.
pub(super) type SeriesRow = (
    i64,
    String,
    i64,
    String,
    Option<String>,
    Option<i64>,
    i64,
    String,
    String,
    Option<String>,
    String,
    Option<Vec<u8>>,
);

/// The series rows a trend's records are built from (append a WHERE and the run order).
/// The rows `trend_records` reads: each series with its run.
macro_rules! series_rows {
    () => {
        "SELECT r.id, r.benchmark, r.machine_id, k.version, r.commit_sha, r.commit_time, \
     s.id, s.metric, s.param, s.unit, s.direction, s.packed \
     FROM run r JOIN kernel k ON k.id = r.kernel_id JOIN series s ON s.run_id = r.id"
    };
}
pub(super) use series_rows;

/// The trend records of `rows` (in run order), by series key: what the packed trend chunks
/// hold of each run. Series stored before `packed` existed read their `sample` rows.
pub(super) async fn trend_records(
    conn: &mut Tx,
    rows: Vec<SeriesRow>,
    trends: &mut BTreeMap<TrendKey, Vec<TrendRun>>,
) -> StoreResult<()> {
    for row in rows {
        let (run_id, benchmark, machine_id, kernel, commit, commit_time) =
            (row.0, row.1, row.2, row.3, row.4, row.5);
        let (series_id, metric, param, unit, direction, packed) =
            (row.6, row.7, row.8, row.9, row.10, row.11);
        let values = match packed {
            Some(bytes) => super::packed::unpack(&bytes)?.1,
            None => query_as::<(f64,)>(sql!(
                "SELECT value FROM sample WHERE series_id = ? ORDER BY iteration"
            ))
            .bind(series_id)
            .fetch_all(&mut *conn)
            .await?
            .into_iter()
            .map(|(v,)| v)
            .collect(),
        };
        if values.is_empty() {
            continue;
        }
        let record = trend_record(
            TrendRun {
                run_id,
                kernel: kernel.into(),
                commit: commit.map(Into::into),
                commit_time,
                unit: unit.map(Into::into),
                direction: app::label::Direction::parse(&direction).unwrap_or_default(),
                ..TrendRun::default()
            },
            &values,
        );
        trends
            .entry((benchmark, machine_id, metric, param))
            .or_default()
            .push(record);
    }
    Ok(())
}

/// Queues every series key the upload touched for the alert detector (`alerts::detector`),
/// in the upload's transaction: a 201 means the detector will look, even after a crash.
pub(super) async fn queue_alert_jobs(
    conn: &mut Tx,
    trends: &BTreeMap<TrendKey, Vec<TrendRun>>,
    upload_id: i64,
) -> StoreResult<()> {
    for (benchmark, machine_id, metric, param) in trends.keys() {
        query(
            sql!("INSERT INTO alert_job (benchmark, machine_id, metric, param, upload_id) VALUES (?, ?, ?, ?, ?) \
             ON CONFLICT (benchmark, machine_id, metric, param) DO UPDATE SET upload_id = excluded.upload_id"),
        )
        .bind(benchmark)
        .bind(machine_id)
        .bind(metric)
        .bind(param)
        .bind(upload_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Appends runs (in run order) to the packed trend chunks of their series keys: fills the last
/// chunk of a key up to `CHUNK_RUNS` runs, then starts new ones.
pub(super) async fn append_to_trends(
    conn: &mut Tx,
    trends: &BTreeMap<TrendKey, Vec<TrendRun>>,
) -> StoreResult<()> {
    for ((benchmark, machine_id, metric, param), new) in trends {
        let last: Option<(i64, i64, Vec<u8>)> = query_as(sql!(
            "SELECT chunk, runs, packed FROM trend_chunk \
             WHERE benchmark = ? AND machine_id = ? AND metric = ? AND param = ? \
             ORDER BY chunk DESC LIMIT 1"
        ))
        .bind(benchmark)
        .bind(machine_id)
        .bind(metric)
        .bind(param)
        .fetch_optional(&mut *conn)
        .await?;
        // A last chunk that is full is left as it is; one with room is rewritten with more runs.
        let (first, mut runs) = match last {
            Some((chunk, runs, _)) if runs >= CHUNK_RUNS => (chunk + 1, Vec::new()),
            Some((chunk, _, packed)) => {
                let mut runs = Vec::new();
                unpack_chunk(&packed, &mut runs)?;
                (chunk, runs)
            }
            None => (0, Vec::new()),
        };
        runs.extend(new.iter().cloned());
        for (i, chunk) in runs.chunks(CHUNK_RUNS as usize).enumerate() {
            query(
                sql!("INSERT INTO trend_chunk (benchmark, machine_id, metric, param, chunk, runs, packed) \
                 VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (benchmark, machine_id, metric, param, chunk) \
                 DO UPDATE SET runs = excluded.runs, packed = excluded.packed"),
            )
            .bind(benchmark)
            .bind(machine_id)
            .bind(metric)
            .bind(param)
            .bind(first + i as i64)
            .bind(chunk.len() as i64)
            .bind(pack_chunk(chunk))
            .execute(&mut *conn)
            .await?;
        }
    }
    Ok(())
}

impl Store {
    /// The id of the permalink with this spec digest, creating it with `new_id` if there is none.
    pub async fn ensure_permalink(
        &self,
        digest: &str,
        spec: &str,
        new_id: &str,
    ) -> StoreResult<String> {
        let mut tx = self.writer.begin_write().await?;
        if let Some((id,)) =
            query_as::<(String,)>(sql!("SELECT id FROM permalink WHERE digest = ?"))
                .bind(digest)
                .fetch_optional(&mut tx)
                .await?
        {
            return Ok(id);
        }
        query(sql!(
            "INSERT INTO permalink (id, spec, digest) VALUES (?, ?, ?)"
        ))
        .bind(new_id)
        .bind(spec)
        .bind(digest)
        .execute(&mut tx)
        .await?;
        tx.commit().await?;
        Ok(new_id.to_owned())
    }
}
